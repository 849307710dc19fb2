// The command line's help against the code and the README: one entry per command in
// src/cli/help.ts, each dispatched by main.ts, each flag a command's parseArgs takes named in its
// --help, and the README's command list the one the help prints.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMMAND_HELP, COMMANDS, HELP, RUN_FLAGS_HELP, SCHEDULE_RUN_FLAGS, commandList } from '../../src/cli/help.js';
import { runFlags, scheduleRunFlags } from '../../src/cli/run-flags.js';
import { readmeWithCliList } from '../../scripts/docs-reference.js';

const MAIN = readFileSync('src/cli/main.ts', 'utf8');
const COMMANDS_DIR = 'src/cli/commands';

/** main.ts's dispatch: command name → the file under commands/ that runs it. */
function dispatch(): Map<string, string> {
  const cases = [...MAIN.matchAll(/case '([a-z-]+)':\s*return await \(await import\('\.\/commands\/([a-z-]+)\.js'\)\)/g)];
  const map = new Map<string, string>(cases.map((m) => [m[1], `${m[2]}.ts`]));
  if (/case 'worker':/.test(MAIN)) map.set('worker', '');
  return map;
}

/** The flags a command file passes to parseArgs: `name: { type: ...` entries and the shared run flags it spreads. */
function flagsOf(file: string): string[] {
  const text = readFileSync(join(COMMANDS_DIR, file), 'utf8');
  const own = [...text.matchAll(/(?:'([a-z][a-z-]*)'|\b([a-z][a-z]*)): \{ type: '(?:string|boolean)'/g)].map((m) => m[1] ?? m[2]);
  const shared = [...(text.includes('...runFlags') ? Object.keys(runFlags) : []), ...(text.includes('...scheduleRunFlags') ? Object.keys(scheduleRunFlags) : [])];
  return [...new Set([...own, ...shared])];
}

test('every command has one entry in help.ts, and main.ts runs each', () => {
  const names = COMMANDS.map((c) => c.name);
  assert.equal(new Set(names).size, names.length, 'a command is listed twice in COMMANDS');
  assert.deepEqual(Object.keys(COMMAND_HELP), names);
  assert.deepEqual([...dispatch().keys()].sort(), [...names].sort(), 'main.ts dispatches other commands than help.ts lists');
  for (const line of commandList().split('\n')) assert.ok(HELP.includes(line), `webdata --help lacks "${line}"`);
});

test("each flag a command takes is named in its --help", () => {
  const problems: string[] = [];
  const served = new Map<string, string[]>();
  for (const [command, file] of dispatch()) if (file) served.set(file, [...(served.get(file) ?? []), command]);
  for (const file of readdirSync(COMMANDS_DIR).filter((f) => f.endsWith('.ts'))) {
    const commands = served.get(file) ?? [];
    if (commands.length === 0) continue;
    const help = commands.map((c) => COMMAND_HELP[c]).join('\n');
    for (const flag of flagsOf(file)) {
      if (!new RegExp(`--${flag}(?![a-z-])`).test(help)) problems.push(`${commands.join('/')}: --${flag} (${file})`);
    }
  }
  assert.deepEqual(problems, [], 'add each flag to the command\'s entry in src/cli/help.ts');
});

test('the run flags: all in `webdata run --help`, and `webdata schedule --help` lists the ones a schedule takes', () => {
  for (const flag of Object.keys(runFlags)) assert.match(RUN_FLAGS_HELP, new RegExp(`--${flag}(?![a-z-])`), `RUN_FLAGS_HELP lacks --${flag}`);
  for (const flag of SCHEDULE_RUN_FLAGS) assert.match(COMMAND_HELP.schedule, new RegExp(`--${flag}(?![a-z-])`));
  assert.match(COMMAND_HELP.schedule, /--tenant/);
});

test("the README's CLI command list is the help's", () => {
  const readme = readFileSync('README.md', 'utf8');
  assert.equal(readme, readmeWithCliList(readme), "README.md's command list differs from src/cli/help.ts: run npm run docs:reference");
});

// Every shell walkthrough of the docs, run as a reader runs it. The pages: README.md, docs/*.md,
// packages/*/README.md, examples/*/README.md; the blocks: fenced, with `$ ` prompts
// (doc-blocks.ts). One dev stack for all of them, started as the README starts it
// (`npm run webdata -- dev` in the repository, a process of its own); the README block that shows
// that command is compared with this stack's output instead of starting a second one.
//
// Each block runs in a fresh bash in the repository root with a clean environment: PATH (without
// npm's node_modules/.bin entries, plus a `webdata` command, `node bin/webdata.js`, as an
// installed package gives), a HOME of its own (no temporal.toml or npm settings of whoever runs
// the tests; the Temporal CLI cache is linked in) and nothing else: what a command needs, the
// page must set with its own `$ export` lines, which later blocks of the same page run first.
// WEBDATA_ALLOW_PRIVATE_ADDRESSES included: this file never sets it.
//
// A block marked `<!-- doctest: background until "<regex>" -->` serves until stopped (a worker, a
// server): it runs in the background until a line of its output matches the regex, its shown lines
// are compared then, and it keeps running while the page's later blocks run; after the page's last
// block its process group gets SIGTERM (SIGKILL 30 s later).
//
// A block passes when each command exits 0 and the lines the page shows under it appear in its
// output, in order, after normalise.ts. Blocks that cannot run here are listed, each with its
// reason, in walkthroughs.json, which also holds the count of blocks executed: fewer fails.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { temporalCliCacheDir } from '../../src/devserver/temporal-cli.js';
import { blockScript, splitOutput } from './block-script.js';
import { isExport, parseDocBlocks, type DocBlock } from './doc-blocks.js';
import { compareOutput, outputLines } from './normalise.js';

const ROOT = process.cwd();
const CONFIG = 'test/docs/walkthroughs.json';
/** How the README starts the stack: the block that shows exactly this is this file's stack. */
const STACK_COMMAND = 'npm run webdata -- dev';
/** The ports `webdata dev` takes by default (src/cli/commands/dev.ts), which the README shows. */
const STACK_PORTS = [7233, 8233, 3002, 3003, 3004];
const STACK_START_MS = 8 * 60_000;
const BLOCK_MS = 10 * 60_000;
const STORE = join(ROOT, '.data/store');
const SAVED_STORE = join(ROOT, '.data/store-saved-by-doc-test');

interface Exception { page: string; command: string; reason: string }
interface Config { executedAtLeast: number; exceptions: Exception[] }

const config = JSON.parse(readFileSync(join(ROOT, CONFIG), 'utf8')) as Config;

function pages(): string[] {
  const mdIn = (dir: string) => (existsSync(join(ROOT, dir)) ? readdirSync(join(ROOT, dir)).filter((f) => f.endsWith('.md')).sort().map((f) => `${dir}/${f}`) : []);
  const readmes = (dir: string) => readdirSync(join(ROOT, dir)).sort().map((d) => `${dir}/${d}/README.md`).filter((f) => existsSync(join(ROOT, f)));
  return ['README.md', ...mdIn('docs'), ...readmes('packages'), ...readmes('examples')];
}

const blocks = pages().flatMap((page) => parseDocBlocks(page, readFileSync(join(ROOT, page), 'utf8')));
const exceptionOf = (b: DocBlock) => config.exceptions.find((e) => e.page === b.page && b.commands[0].text.startsWith(e.command));
const isStackBlock = (b: DocBlock) => b.commands.length === 1 && b.commands[0].text.trim() === STACK_COMMAND;
const label = (b: DocBlock) => `${b.page}:${b.line} $ ${b.commands[0].text.split('\n')[0]}`;

/** The clean environment of a reader's shell. */
interface Shell { env: Record<string, string>; home: string }

function cleanShell(): Shell {
  const home = mkdtempSync(join(tmpdir(), 'webdata-doc-home-'));
  // The Temporal CLI build is found in ~/.cache/webdata-temporal (temporal-cli.ts): link the one
  // this machine has, so the fresh HOME does not build it again.
  mkdirSync(join(home, '.cache'), { recursive: true });
  symlinkSync(dirname(temporalCliCacheDir(process.env)), join(home, '.cache', 'webdata-temporal'));
  const bin = join(home, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'webdata'), `#!/bin/sh\nexec node ${JSON.stringify(join(ROOT, 'bin/webdata.js'))} "$@"\n`);
  chmodSync(join(bin, 'webdata'), 0o755);
  const path = (process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin').split(delimiter).filter((d) => d && !d.includes(`node_modules${'/'}.bin`));
  return { home, env: { PATH: [bin, ...path].join(delimiter), HOME: home } };
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A process group of its own, so that stopping it stops npm, its shell and node together. */
function spawnGroup(cmd: string, args: string[], env: Record<string, string>): { child: ChildProcess; output: () => string; closed: Promise<number | null> } {
  const child = spawn(cmd, args, { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout?.on('data', (c: Buffer) => { text += c.toString(); });
  child.stderr?.on('data', (c: Buffer) => { text += c.toString(); });
  const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, output: () => text, closed };
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

const tail = (text: string, n = 25) => outputLines(text).slice(-n).map((l) => `    | ${l}`).join('\n');

/** What a failure most likely means, when its output says so. */
function likelyCause(output: string): string {
  if (/must be a public address|is a loopback address|is a private address/.test(output)) {
    return '\n  cause: the run was refused for a private address (the dev stack is on 127.0.0.1). The page must allow the stack\'s addresses with its own `$ export WEBDATA_ALLOW_PRIVATE_ADDRESSES=...` line, as `webdata dev` prints it; this test never sets the variable.';
  }
  if (/cannot reach Temporal|ECONNREFUSED/.test(output)) return '\n  cause: nothing answered where the command looked (the dev stack, or a server the page starts).';
  if (/command not found/.test(output)) return '\n  cause: a command the page uses is not on a clean PATH.';
  return '';
}

interface Result { block: string; status: 'passed' | 'failed' | 'excepted'; why?: string }
const results: Result[] = [];

function check(block: DocBlock, runs: ReturnType<typeof splitOutput>, wholeOutput: string, home: string): string | undefined {
  const numbersVary = block.directives.includes('numbers vary');
  const compared = !block.directives.includes('output not compared');
  for (const [i, command] of block.commands.entries()) {
    const run = runs[i];
    const where = `${block.page}:${command.line} $ ${command.text}`;
    if (!run) return `${where}\n  did not start (the block stopped before it)\n${tail(wholeOutput)}`;
    if (run.status === undefined) return `${where}\n  did not end within ${BLOCK_MS / 60_000} min\n${tail(run.output)}${likelyCause(run.output)}`;
    if (run.status !== 0) return `${where}\n  exited ${run.status}\n${tail(run.output)}${likelyCause(run.output)}`;
    if (!compared) continue;
    const cmp = compareOutput(command.expected, run.output, { numbersVary, home });
    if (!cmp.ok) {
      return `${where}\n  the page shows a line it did not print: ${JSON.stringify(cmp.missing)}${cmp.after ? ` (after ${JSON.stringify(cmp.after)})` : ''}\n  printed:\n${tail(run.output, 40)}${likelyCause(run.output)}`;
    }
  }
  return undefined;
}

const BACKGROUND = /^background until "(.*)"$/;
const backgroundRegex = (b: DocBlock) => b.directives.map((d) => BACKGROUND.exec(d)).find((m) => m !== null)?.[1];

/** The serving blocks of each page, running until the page's last block has run. */
const backgrounds = new Map<string, ReturnType<typeof spawnGroup>[]>();

async function stopBackgrounds(page: string): Promise<void> {
  for (const run of backgrounds.get(page) ?? []) {
    signalGroup(run.child, 'SIGTERM');
    const killer = setTimeout(() => signalGroup(run.child, 'SIGKILL'), 30_000);
    await run.closed;
    clearTimeout(killer);
  }
  backgrounds.delete(page);
}

/** Starts a serving block; resolves once a line matches `ready` (or it ended, or the deadline passed). */
async function startBackground(block: DocBlock, ready: string, shell: Shell, carried: string[]): Promise<string | undefined> {
  const script = join(shell.home, `block-${block.page.replace(/\W/g, '_')}-${block.line}.sh`);
  writeFileSync(script, blockScript(block.commands.map((c) => c.text), carried));
  const run = spawnGroup('bash', ['--noprofile', '--norc', script], shell.env);
  backgrounds.set(block.page, [...(backgrounds.get(block.page) ?? []), run]);
  const readyLine = new RegExp(ready, 'm');
  let ended = false;
  void run.closed.then(() => { ended = true; });
  const started = Date.now();
  while (!readyLine.test(run.output()) && !ended && Date.now() - started < BLOCK_MS) await new Promise((r) => setTimeout(r, 250));
  const runs = splitOutput(run.output());
  if (!readyLine.test(run.output())) {
    return `${block.page}:${block.line} (background) ${ended ? 'ended' : `printed no line matching /${ready}/ within ${BLOCK_MS / 60_000} min`}\n${tail(run.output())}${likelyCause(run.output())}`;
  }
  // The serving command has not ended, and is not meant to: its output so far is what is compared.
  const last = runs[runs.length - 1];
  if (last && last.status === undefined) last.status = 0;
  return check(block, runs, run.output(), shell.home);
}

async function runBlock(block: DocBlock, shell: Shell, carried: string[]): Promise<string | undefined> {
  const script = join(shell.home, `block-${block.page.replace(/\W/g, '_')}-${block.line}.sh`);
  writeFileSync(script, blockScript(block.commands.map((c) => c.text), carried));
  const run = spawnGroup('bash', ['--noprofile', '--norc', script], shell.env);
  const timer = setTimeout(() => signalGroup(run.child, 'SIGKILL'), BLOCK_MS);
  await run.closed;
  clearTimeout(timer);
  return check(block, splitOutput(run.output()), run.output(), shell.home);
}

describe('the docs\' shell walkthroughs, run in a clean shell against one `webdata dev`', () => {
  let shell: Shell;
  let stack: ReturnType<typeof spawnGroup> | undefined;
  let stackProblem: string | undefined;
  let storeTouched = false;

  before(async () => {
    shell = cleanShell();
    const busy = [];
    for (const port of STACK_PORTS) if (!(await portFree(port))) busy.push(port);
    if (busy.length > 0) {
      stackProblem = `port ${busy.join(', ')} on 127.0.0.1 in use: the doc test runs \`${STACK_COMMAND}\` on its default ports, as the README does; stop what listens there`;
      return;
    }
    // The README's store is .data/store in the repository: a developer's own is put aside, and
    // put back at the end in place of the one the walkthroughs wrote.
    storeTouched = true;
    if (existsSync(STORE)) {
      if (existsSync(SAVED_STORE)) rmSync(STORE, { recursive: true, force: true });
      else renameSync(STORE, SAVED_STORE);
    }
    stack = spawnGroup('npm', ['run', 'webdata', '--', 'dev'], shell.env);
    const started = Date.now();
    const up = /^\s+npm run webdata -- run .*$/m;
    let exited = false;
    void stack.closed.then(() => { exited = true; });
    while (!up.test(stack.output()) && !exited && Date.now() - started < STACK_START_MS) await new Promise((r) => setTimeout(r, 250));
    if (!up.test(stack.output())) stackProblem = `\`${STACK_COMMAND}\` ${exited ? 'exited' : `was not up within ${STACK_START_MS / 60_000} min`}:\n${tail(stack.output())}`;
  });

  after(async () => {
    for (const page of [...backgrounds.keys()]) await stopBackgrounds(page);
    if (stack) {
      signalGroup(stack.child, 'SIGINT');
      const killer = setTimeout(() => { if (stack) signalGroup(stack.child, 'SIGKILL'); }, 60_000);
      await stack.closed;
      clearTimeout(killer);
    }
    if (storeTouched) {
      rmSync(STORE, { recursive: true, force: true });
      if (existsSync(SAVED_STORE)) renameSync(SAVED_STORE, STORE);
    }
    if (shell) rmSync(shell.home, { recursive: true, force: true });
    const count = (s: Result['status']) => results.filter((r) => r.status === s).length;
    console.log(`doc walkthroughs: ${blocks.length} blocks found, ${blocks.length - count('excepted')} executed, ${count('excepted')} excepted, ${count('passed')} passed, ${count('failed')} failed`);
    for (const r of results.filter((x) => x.status === 'failed')) console.log(`  FAILED ${r.block}`);
  });

  const carriedByPage = new Map<string, string[]>();
  // A page's serving blocks stop after its last block that runs.
  const lastOfPage = new Map(blocks.filter((b) => !exceptionOf(b)).map((b) => [b.page, b]));
  for (const block of blocks) {
    const carried = [...(carriedByPage.get(block.page) ?? [])];
    carriedByPage.set(block.page, [...carried, ...block.commands.filter(isExport).map((c) => c.text)]);
    const exception = exceptionOf(block);
    if (exception) {
      results.push({ block: label(block), status: 'excepted', why: exception.reason });
      test(label(block), { skip: `listed in ${CONFIG}: ${exception.reason}` }, () => {});
      continue;
    }
    const ready = backgroundRegex(block);
    test(label(block), { timeout: BLOCK_MS + 60_000 }, async () => {
      const failure = stackProblem
        ? `the dev stack did not start: ${stackProblem}`
        : isStackBlock(block)
          ? check(block, [{ output: stack?.output() ?? '', status: 0 }], stack?.output() ?? '', shell.home)
          : ready !== undefined
            ? await startBackground(block, ready, shell, carried)
            : await runBlock(block, shell, carried);
      if (lastOfPage.get(block.page) === block) await stopBackgrounds(block.page);
      results.push({ block: label(block), status: failure ? 'failed' : 'passed', why: failure });
      if (failure) assert.fail(failure);
    });
  }

  test(`each exception in ${CONFIG} names one block, and at least ${config.executedAtLeast} blocks are executed`, () => {
    for (const e of config.exceptions) {
      const matching = blocks.filter((b) => b.page === e.page && b.commands[0].text.startsWith(e.command));
      assert.equal(matching.length, 1, `${CONFIG}: the exception for ${e.page} "${e.command}" matches ${matching.length} blocks (it must name exactly one; remove it when the block is gone)`);
    }
    const executed = blocks.filter((b) => !exceptionOf(b)).length;
    assert.ok(executed >= config.executedAtLeast, `${executed} doc blocks executed, fewer than the ${config.executedAtLeast} recorded in ${CONFIG}: a block was removed or excepted; make it run again, or lower the count there and say why in the commit`);
    if (executed > config.executedAtLeast) console.log(`${executed} doc blocks executed, more than the ${config.executedAtLeast} recorded: raise executedAtLeast in ${CONFIG}`);
  });
});

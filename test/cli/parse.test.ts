// `webdata parse` as a user runs it: --help and bad input without connecting (exit 2, one
// line), then files parsed on a real stack: the summary names the failed file with its error.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DevStack } from '../../src/cli/dev-stack.js';
import { runCliInProcess, runCliProcess } from '../helpers/cli.js';
import { makeDocx, makePdf } from '../helpers/documents.js';
import { startStack } from '../helpers/stack.js';

const webdata = (args: string[], env: NodeJS.ProcessEnv = {}, cwd?: string, timeoutMs?: number) => runCliProcess(args, { env, cwd, timeoutMs });

// A closed port: anything that tried to connect would fail with exit 1, not the usage exit 2.
const NOWHERE = { TEMPORAL_ADDRESS: '127.0.0.1:9' };

// Help and bad input answer before anything connects: main() in this process (test/helpers/cli.ts);
// the stack case below runs bin/webdata.js.
test('webdata parse --help and bad input answer without connecting', async () => {
  const help = await runCliInProcess(['parse', '--help'], NOWHERE);
  assert.equal(help.code, 0);
  assert.match(help.out, /^usage: webdata parse <file>\.\.\./);
  const cases: Array<[string[], RegExp]> = [
    [['parse'], /^webdata parse: name at least one file to parse/],
    [['parse', 'a.txt', '--budget', 'lots'], /^webdata parse: --budget: must be a whole number, got "lots"/],
    [['parse', 'a.txt', '--concurrency', '0'], /^webdata parse: invalid input: concurrency: must be at least 1/],
    [['parse', 'a.txt', '--formats', 'markdown,nope'], /^webdata parse: invalid input: options\.formats\.1/],
  ];
  for (const [args, message] of cases) {
    const r = await runCliInProcess(args, NOWHERE);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
    assert.match(r.err, message);
    assert.equal(r.err.trim().split('\n').length, 1, r.err);
  }
});

describe('on a stack', () => {
  let stack: DevStack;
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'webdata-cli-parse-'));
    stack = await startStack();
  });
  after(async () => {
    await stack?.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('parses the files, prints the failed one with its error and the store run, exit 0', async () => {
    await writeFile(join(dir, 'report.pdf'), await makePdf());
    await writeFile(join(dir, 'notes.docx'), makeDocx());
    await writeFile(join(dir, 'scan.pdf'), '%PDF-1.4 broken');
    const id = `cli-parse-${Date.now()}`;
    // Relative paths (run in the files' folder), made absolute by the command.
    const { code, out, err } = await webdata(['parse', 'report.pdf', 'notes.docx', 'scan.pdf', '--budget', '10', '--workflow-id', id, '--task-queue', stack.taskQueue], {
      TEMPORAL_ADDRESS: stack.temporal.address,
      TEMPORAL_NAMESPACE: stack.temporal.namespace,
    }, dir);
    assert.equal(code, 0, `${out}\n${err}`);
    assert.match(out, new RegExp(`^started ${id}$`, 'm'));
    assert.match(out, new RegExp(`^run ${id}: partial · 2 of 3 files parsed · 1 failed · 0 skipped · 2 of 10 credits$`, 'm'));
    assert.match(out, /^ {2}failed {3}\S+scan\.pdf · validation: .*The PDF file could not be read.* \(INVALID_FILE\)$/m);
    assert.match(out, new RegExp(`^ {2}store {4}run ${id}: a document per parsed file`, 'm'));
    const urls: string[] = [];
    for await (const doc of stack.store.readDocuments(id)) urls.push(doc.url);
    assert.deepEqual(urls.sort(), ['notes.docx', 'report.pdf']);
  });
});

// A block's bash script (block-script.ts) run by a real bash: each command's output and exit
// code come back apart, the carried exports are set but print nothing, and a failing command
// ends the block.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { blockScript, splitOutput } from './block-script.js';

function bash(script: string): string {
  const run = spawnSync('bash', ['--noprofile', '--norc', '-c', script], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, encoding: 'utf8' });
  return run.stdout;
}

test("each command's output and exit code, the exports carried in", () => {
  const out = bash(blockScript(['echo "$GREETING"', 'printf no-newline', 'echo to-stderr >&2'], ['export GREETING=hello', 'echo carried-but-silent']));
  assert.deepEqual(splitOutput(out), [
    { output: 'hello\n', status: 0 },
    { output: 'no-newline', status: 0 },
    { output: 'to-stderr\n', status: 0 },
  ]);
});

test('a failing command ends the block; a command over two lines is one command', () => {
  const out = bash(blockScript(['echo one \\\n  two', 'echo before; (exit 3)', 'echo never'], []));
  assert.deepEqual(splitOutput(out), [
    { output: 'one two\n', status: 0 },
    { output: 'before\n', status: 3 },
  ]);
});

test('a command still running when the output stops has no exit code', () => {
  const out = bash(blockScript(['echo started'], [])).replace(new RegExp(String.raw`\n?\u001edoctest end[^\n]*\n$`), '');
  assert.deepEqual(splitOutput(out), [{ output: 'started\n', status: undefined }]);
});

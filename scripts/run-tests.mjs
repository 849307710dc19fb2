#!/usr/bin/env node
// Runs the test files under test/ and service/test/ with Node's test runner, compiled (test-build.mjs).
//   node scripts/run-tests.mjs [group...]   only folders named like the groups
//   node scripts/run-tests.mjs --unit       the fast set (npm run test:unit; see test-files.mjs)
// Without groups: every folder except the opt-in ones. Files run TEST_CONCURRENCY at a time:
// each file is its own `node --test` process with its own servers on free ports (a folder's
// `together.ts` runs its files in one). Default 2: the machine this runs on has two cores or more,
// and a test waits for events with generous deadlines, never for a machine to be fast.
//
// Files start longest first (test-files.mjs). They are started here, one `node --test` each,
// because `node --test a b c` sorts the files by name before it starts them: the longest files
// would start wherever their names fall, and a long one started late ends the run alone. A file's
// output is printed whole when it ends, then one line with its time; the counts of every file
// are summed at the end, in the runner's own `ℹ tests N` lines (.ci/run reads the last ones).
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { longestFirst, prepareTestFiles, selectTestFiles, summaryCount, testEnv, testFileArgs } from './test-files.mjs';

const args = process.argv.slice(2);
const unit = args.includes('--unit');
const groups = args.filter((a) => a !== '--unit');
const files = longestFirst(selectTestFiles(groups, { unit }));

if (files.length === 0) {
  console.error(`no test files found for ${groups.join(', ') || 'all groups'}`);
  process.exit(1);
}

const concurrency = process.env.TEST_CONCURRENCY ?? '2';
if (!/^[1-9]\d*$/.test(concurrency)) {
  console.error(`TEST_CONCURRENCY: must be a whole number of at least 1, got "${concurrency}"`);
  process.exit(2);
}

await prepareTestFiles();

const COUNTS = ['tests', 'suites', 'pass', 'fail', 'cancelled', 'skipped', 'todo'];
const totals = Object.fromEntries(COUNTS.map((k) => [k, 0]));
const failed = [];
const started = Date.now();
const env = testEnv();

/** Runs one file; resolves when its process has ended and its output is printed. */
function runFile(file) {
  const fileStarted = Date.now();
  const child = spawn(process.execPath, testFileArgs(file), {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const chunks = [];
  child.stdout.on('data', (c) => chunks.push(c));
  child.stderr.on('data', (c) => chunks.push(c));
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      const out = Buffer.concat(chunks).toString();
      process.stdout.write(out.endsWith('\n') || out === '' ? out : `${out}\n`);
      for (const k of COUNTS) totals[k] += summaryCount(out, k);
      const ok = code === 0;
      if (!ok) failed.push(file);
      const seconds = ((Date.now() - fileStarted) / 1000).toFixed(1);
      process.stdout.write(`── ${file}: ${ok ? 'passed' : `FAILED (${signal ?? `exit ${code}`})`} in ${seconds} s\n\n`);
      resolve();
    });
  });
}

let next = 0;
async function lane() {
  while (next < files.length) await runFile(files[next++]);
}
await Promise.all(Array.from({ length: Math.min(Number(concurrency), files.length) }, lane));

if (failed.length > 0) console.log(`✖ failed files:\n${failed.map((f) => `  ${f}`).join('\n')}`);
console.log(`ℹ files ${files.length} (${failed.length} failed)`);
for (const k of COUNTS) console.log(`ℹ ${k} ${totals[k]}`);
console.log(`ℹ duration_ms ${Date.now() - started}`);
process.exit(failed.length > 0 ? 1 : 0);

#!/usr/bin/env node
// Times each test file on its own, one after the other (one process per file, as `node --test`
// runs them) and prints a table, longest first, with the CPU each took (Linux):
//   node scripts/time-tests.mjs [--unit] [group...] > /tmp/test-durations.txt
// Same selection as scripts/run-tests.mjs; each file's output goes to TIME_TESTS_LOG_DIR.
// With --json, also writes scripts/test-durations.json, the order run-tests.mjs starts files in.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { prepareTestFiles, selectTestFiles, summaryCount, testEnv, testFileArgs } from './test-files.mjs';

const args = process.argv.slice(2);
const files = selectTestFiles(args.filter((a) => !a.startsWith('--')), { unit: args.includes('--unit') });
const logDir = process.env.TIME_TESTS_LOG_DIR ?? '/tmp/time-tests-logs';
mkdirSync(logDir, { recursive: true });
await prepareTestFiles();
const rows = [];
const t0 = Date.now();

/**
 * CPU seconds (user + system) of this process's ended, waited-for children, with theirs: fields
 * cutime and cstime of /proc/self/stat. Undefined off Linux, where the column is left out.
 */
function childrenCpuSeconds() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').replace(/^.*\) /s, '').split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return undefined;
  }
}

for (const file of files) {
  const start = Date.now();
  const cpuBefore = childrenCpuSeconds();
  const r = spawnSync(process.execPath, testFileArgs(file), {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: testEnv(),
  });
  const seconds = (Date.now() - start) / 1000;
  const cpuAfter = childrenCpuSeconds();
  const cpu = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore;
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  writeFileSync(join(logDir, file.replaceAll('/', '__') + '.log'), out);
  rows.push({ file, seconds, cpu, tests: summaryCount(out, 'tests'), fail: summaryCount(out, 'fail'), status: r.status });
  process.stderr.write(`${seconds.toFixed(1).padStart(7)} s${cpuColumn(cpu)}  ${r.status === 0 ? 'ok  ' : 'FAIL'}  ${file}\n`);
}
rows.sort((a, b) => b.seconds - a.seconds);
const total = (Date.now() - t0) / 1000;
const lines = rows.map((r) => `${r.seconds.toFixed(1).padStart(7)} s${cpuColumn(r.cpu)}  ${String(r.tests).padStart(4)} tests  ${r.status === 0 ? 'ok  ' : 'FAIL'}  ${r.file}`);
const totalCpu = rows.every((r) => r.cpu !== undefined) ? rows.reduce((sum, r) => sum + r.cpu, 0) : undefined;
console.log(`${lines.join('\n')}\n${total.toFixed(1).padStart(7)} s${cpuColumn(totalCpu)}  total, ${rows.length} files, ${rows.reduce((s, r) => s + r.tests, 0)} tests, ${rows.filter((r) => r.status !== 0).length} failed files`);

function cpuColumn(cpu) {
  return cpu === undefined ? '' : `${cpu.toFixed(1).padStart(7)} s CPU`;
}

if (args.includes('--json')) {
  const path = 'scripts/test-durations.json';
  const known = existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : {};
  for (const r of rows) known[r.file] = Math.round(r.seconds);
  const sorted = Object.fromEntries(Object.entries(known).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(path, `${JSON.stringify(sorted, null, 2)}\n`);
}

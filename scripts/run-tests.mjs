#!/usr/bin/env node
// Runs the test files under test/ and service/test/ with Node's test runner (TypeScript via tsx).
// `node scripts/run-tests.mjs [group...]` limits the run to folders named like the groups.
// Without groups: every folder except the opt-in ones below.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';

const roots = ['test', 'packages/service/test'];
const groups = process.argv.slice(2);

function walk(dir) {
  let out = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out = out.concat(walk(full));
    else if (name.endsWith('.test.ts')) out.push(full);
  }
  return out;
}

// Groups that run only when named (`node scripts/run-tests.mjs scale`), never by default:
// test/scale starts a real Temporal server on PostgreSQL (scripts/temporal-server.sh).
const optIn = ['scale'];

const files = roots
  .flatMap((r) => { try { return walk(r); } catch { return []; } })
  .filter((f) => {
    const parts = relative('.', f).split('/');
    if (groups.length === 0) return !optIn.some((g) => parts.includes(g));
    return groups.some((g) => parts.includes(g));
  })
  .sort();

if (files.length === 0) {
  console.error(`no test files found for ${groups.join(', ') || 'all groups'}`);
  process.exit(1);
}

const concurrency = process.env.TEST_CONCURRENCY ?? '1';
const result = spawnSync(
  process.execPath,
  ['--conditions=webdata-source', '--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files],
  // Every test's sites and services listen on 127.0.0.1; the hostile tests turn this off themselves.
  { stdio: 'inherit', env: { ...process.env, WEBDATA_ALLOW_PRIVATE_ADDRESSES: '1' } },
);
process.exit(result.status ?? 1);

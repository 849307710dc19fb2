#!/usr/bin/env node
// Runs the test files under test/ and service/test/ with Node's test runner (TypeScript via tsx).
//   node scripts/run-tests.mjs [group...]   only folders named like the groups
//   node scripts/run-tests.mjs --unit       the fast set (npm run test:unit; see test-files.mjs)
// Without groups: every folder except the opt-in ones. Files run TEST_CONCURRENCY at a time:
// each file is its own process with its own servers on free ports (a folder's `together.ts` runs
// its files in one). Default 2: the machine this runs on has two cores or more, and a test waits
// for events with generous deadlines, never for a machine to be fast.
import { spawnSync } from 'node:child_process';
import { longestFirst, selectTestFiles, testEnv } from './test-files.mjs';

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
const result = spawnSync(
  process.execPath,
  ['--conditions=webdata-source', '--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files],
  { stdio: 'inherit', env: testEnv() },
);
process.exit(result.status ?? 1);

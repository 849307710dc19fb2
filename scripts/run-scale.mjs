#!/usr/bin/env node
// Runs the fleet at scale (test/scale/fleet.scale.ts, not part of `npm test`) on the
// production-shaped Temporal (scripts/temporal-server.sh, built once into the cache) and prints
// its table and the webhook receiver's counts (docs/reliability.md).
//   npm run test:scale                      the full profile (default): 200 runs, a kill every 20 s
//   SCALE_PROFILE=ci npm run test:scale     the short profile for CI (16 runs, one kill)
//   SCALE_SEED=<int>                        other kill targets; SCALE_KEEP=1 keeps the temp folder
//   SCALE_GOVERNOR=1                        every run with the fleet governor (input.governor: {}), to compare 429s
//   node scripts/run-scale.mjs --table      only print the tables of the profile's last run
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { clearTimeout, setTimeout } from 'node:timers';

const profile = process.env.SCALE_PROFILE ?? 'full';
if (!['full', 'ci'].includes(profile)) {
  console.error('SCALE_PROFILE: must be full or ci');
  process.exit(2);
}
// Hard bound on the whole run, above the test's own deadlines.
const budgetMs = (profile === 'ci' ? 30 : 240) * 60_000;
const report = join('.data', 'scale', `report-${profile}.json`);

function table() {
  if (!existsSync(report)) {
    console.error(`no report at ${report}`);
    return;
  }
  const r = JSON.parse(readFileSync(report, 'utf8'));
  const esc = (v) => String(v).replace(/\|/g, '\\|');
  const print = (title, rows) => {
    console.log(`\n${title}\n`);
    console.log('| | |');
    console.log('|---|---|');
    for (const [k, v] of Object.entries(rows)) console.log(`| ${esc(k)} | ${esc(v)} |`);
  };
  print(`Scale profile \`${r.profile}\` (${r.measuredAt}):`, r.table);
  if (r.receiver) print('Webhook receiver under load:', r.receiver);
}

if (process.argv.includes('--table')) {
  table();
  process.exit(0);
}

// The server build is cached outside the clone, keyed by version; the first one takes minutes.
const build = spawnSync('bash', ['scripts/temporal-server.sh', 'build'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

rmSync(report, { force: true });
const child = spawn(
  process.execPath,
  ['--conditions=webdata-source', '--import', 'tsx', '--test', '--test-concurrency=1', '--test-reporter=spec', 'test/scale/fleet.scale.ts'],
  { stdio: 'inherit', env: { ...process.env, SCALE_PROFILE: profile }, detached: true },
);
// The test runs in its own process group, so its workers and receiver go down with it when the
// budget runs out or the run is interrupted (the servers' watchdogs stop the servers).
const stopGroup = (signal) => {
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
};
const timer = setTimeout(() => {
  console.error(`scale: over the ${budgetMs / 60_000} min budget, stopping`);
  stopGroup('SIGKILL');
}, budgetMs);
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => stopGroup(sig));
child.on('exit', (code, signal) => {
  clearTimeout(timer);
  table();
  process.exit(code ?? (signal ? 1 : 0));
});

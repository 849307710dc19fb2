#!/usr/bin/env node
// Runs the chaos scenarios (test/chaos/*.chaos.ts, not part of `npm test`) and prints the
// measured figures as a markdown table (docs/reliability.md).
//   npm run test:chaos                      the full profile (default)
//   CHAOS_PROFILE=ci npm run test:chaos     the short profile for CI (every scenario, fewer kills/pages)
//   CHAOS_SEED=<int>                        other random moments; CHAOS_KEEP=1 keeps the temp folders
//   node scripts/run-chaos.mjs --table      only print the table of the last run of the profile
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { clearTimeout, setTimeout } from 'node:timers';

const profile = process.env.CHAOS_PROFILE ?? 'full';
if (!['full', 'ci'].includes(profile)) {
  console.error('CHAOS_PROFILE: must be full or ci');
  process.exit(2);
}
// Hard bound on the whole run; each scenario has its own node:test timeout below it.
const budgetMs = (profile === 'ci' ? 30 : 120) * 60_000;
const report = join('.data', 'chaos', `report-${profile}.json`);

function table() {
  if (!existsSync(report)) {
    console.error(`no report at ${report}`);
    return;
  }
  const all = JSON.parse(readFileSync(report, 'utf8'));
  const rows = Object.keys(all).sort().map((k) => all[k]);
  const esc = (v) => String(v).replace(/\|/g, '\\|');
  console.log(`\nChaos profile \`${profile}\` (${rows[0]?.measuredAt ?? ''}):\n`);
  console.log('| scenario | injected | outcome | figures |');
  console.log('|---|---|---|---|');
  for (const r of rows) {
    const figures = Object.entries(r.figures).map(([k, v]) => `${k}: ${v}`).join('<br>');
    console.log(`| ${esc(r.scenario)} | ${esc(r.injected)} | ${esc(r.outcome)} | ${esc(figures)} |`);
  }
}

if (process.argv.includes('--table')) {
  table();
  process.exit(0);
}

const files = readdirSync('test/chaos').filter((f) => f.endsWith('.chaos.ts')).sort().map((f) => join('test/chaos', f));
rmSync(report, { force: true });
const child = spawn(
  process.execPath,
  ['--conditions=webdata-source', '--import', 'tsx', '--test', '--test-concurrency=1', '--test-reporter=spec', ...files],
  { stdio: 'inherit', env: { ...process.env, CHAOS_PROFILE: profile }, detached: true },
);
// The tests run in their own process group, so the Temporal servers and workers they start
// go down with them when the budget runs out or the run is interrupted.
const stopGroup = (signal) => {
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
};
const timer = setTimeout(() => {
  console.error(`chaos: over the ${budgetMs / 60_000} min budget, stopping`);
  stopGroup('SIGKILL');
}, budgetMs);
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => stopGroup(sig));
child.on('exit', (code, signal) => {
  clearTimeout(timer);
  table();
  process.exit(code ?? (signal ? 1 : 0));
});

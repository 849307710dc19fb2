// `webdata run|schedule --tenant`, `webdata status|export --tenant`, `webdata tenants`: flags
// checked before anything connects (Temporal "at" a closed port), one line naming the flag.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { runCliProcess, type CliProcessRun } from '../helpers/cli.js';

const webdata = (args: string[], env: NodeJS.ProcessEnv) => runCliProcess(args, { env, timeoutMs: 120_000 });

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function oneLine(r: CliProcessRun, code: number, pattern: RegExp, what: string): void {
  assert.equal(r.code, code, `${what}: ${r.err}`);
  const lines = r.err.split('\n').filter((l) => l.trim() !== '');
  assert.equal(lines.length, 1, `${what}: stderr must be one line: ${r.err}`);
  assert.match(lines[0], pattern, what);
}

test('--tenant and --priority reach the input; bad values are refused in one line naming the field', async () => {
  const env = { TEMPORAL_ADDRESS: `127.0.0.1:${await closedPort()}` };
  const ok = await webdata(['run', 'https://example.com/', '--tenant', 'acme-eu', '--priority', '2', '--dry-run'], env);
  assert.equal(ok.code, 0, ok.err);
  assert.deepEqual(JSON.parse(ok.out), { url: 'https://example.com/', tenant: 'acme-eu', priorityKey: 2 });
  const scheduled = await webdata(['schedule', 'create', 'acme-daily', 'https://example.com/', '--every', '1d', '--tenant', 'acme', '--dry-run'], env);
  assert.equal(scheduled.code, 0, scheduled.err);
  assert.equal(JSON.parse(scheduled.out).tenant, 'acme');
  oneLine(await webdata(['run', 'https://example.com/', '--tenant', 'acme corp', '--dry-run'], env), 2, /tenant: must be 1-64 letters, digits, dot, dash or underscore/, 'tenant with a space');
  oneLine(await webdata(['run', 'https://example.com/', '--priority', '9', '--dry-run'], env), 2, /priorityKey: must be at most 5/, 'priority 9');
  oneLine(await webdata(['status', '--tenant', 'a/b'], env), 2, /--tenant: must be 1-64 letters/, 'status --tenant a/b');
  oneLine(await webdata(['status', 'some-run', '--tenant', 'acme'], env), 2, /--tenant lists runs: give no workflow id/, 'status with both');
  oneLine(await webdata(['export', '--tenant', 'acme', '--follow'], env), 2, /--tenant exports every completed run/, 'export --tenant --follow');
  oneLine(await webdata(['tenants', '--set-budget', '5'], env), 2, /--set-budget needs --tenant T/, 'set-budget without tenant');
  oneLine(await webdata(['tenants', '--tenant', 'acme', '--set-budget', 'lots'], env), 2, /--set-budget: must be a whole number of credits/, 'set-budget lots');
  oneLine(await webdata(['tenants', '--tenant', 'acme', '--max-runs', '0'], env), 2, /^webdata tenants: --max-runs: must be a whole number from 1 to 100000, none or default/, 'max-runs 0');
  oneLine(await webdata(['tenants', '--default', '--credits-per-hour', 'lots'], env), 2, /--credits-per-hour: must be a whole number of credits \(0 or more\), none, got "lots"/, 'credits-per-hour lots');
  oneLine(await webdata(['tenants', '--max-runs', '3'], env), 2, /--max-runs and --credits-per-hour need --tenant T or --default/, 'max-runs without a tenant');
  oneLine(await webdata(['tenants', '--tenant', 'acme', '--default', '--max-runs', '3'], env), 2, /--tenant and --default: give one/, 'both');
  const help = await webdata(['tenants', '--help'], env);
  assert.equal(help.code, 0);
  assert.match(help.out, /usage: webdata tenants/);
});

// The command line as a user runs it: `npm run demo` on a fresh stack, and `webdata` usage errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';

function run(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 240_000): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => { out += c.toString(); });
    child.stderr.on('data', (c: Buffer) => { err += c.toString(); });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`timed out: ${args.join(' ')}\n${out}\n${err}`)); }, timeoutMs);
    // 'close', not 'exit': at 'exit' the child's stdout may still hold unread output.
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, out, err }); });
  });
}

test('npm run demo: every stage, the deliberate crawl failure repaired by support ask, exit 0', async () => {
  const { code, out, err } = await run(['packages/temporal/lib/cli/demo.js']);
  assert.equal(code, 0, `${out}\n${err}`);
  assert.match(out, /run webdata-demo-\d+: completed/);
  assert.match(out, /crawl {5}repaired/);
  assert.match(out, /support \((high|medium), applied\)/);
  assert.match(out, /interact {2}completed/);
  assert.match(out, /\/shop\/catalog → \d+/);
  assert.match(out, /Temporal UI: http:\/\/127\.0\.0\.1:\d+\/namespaces\/default\/workflows\//);
});

test('webdata: bad input is refused before anything starts, naming the field and the rule', async () => {
  const bad = await run(['packages/temporal/bin/webdata.js', 'run', 'http://127.0.0.1:9/', '--crawl-limit', 'lots']);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--crawl-limit: must be a whole number/);
  const skip = await run(['packages/temporal/bin/webdata.js', 'run', 'http://127.0.0.1:9/', '--skip', 'scrape']);
  assert.equal(skip.code, 2);
  assert.match(skip.err, /--skip: unknown stage "scrape"/);
  const unknown = await run(['packages/temporal/bin/webdata.js', 'frobnicate']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.err, /unknown command "frobnicate"/);
  const help = await run(['packages/temporal/bin/webdata.js', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.out, /webdata run <url>/);
  const worker = await run(['packages/temporal/bin/webdata.js', 'worker'], { WEBDATA_API_URL: '', WEBDATA_API_KEY: '' });
  assert.equal(worker.code, 2);
  assert.match(worker.err, /WEBDATA_API_KEY: is required/);
});

// A session's Chromium and interact's node runner leave nothing in the temporary folder once they
// are gone, also when killed: Chromium's own files (org.chromium.Chromium.*) live in the session's
// user-data-dir, the runner's (Playwright's artifacts folder of its CDP connection) in a folder
// removed when it exits. Before, each session and runner left folders behind for good (18 of
// Chromium and 9 of Playwright after one run of interact and browser-sessions tests).
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { findChromium } from '../src/browser/chromium.js';
import { launchChromiumProcess } from '../src/browser/chromium-process.js';
import { NodeRunner } from '../src/interact/node-runner.js';
import { until } from './jobs-helpers.js';

const chromiumPath = findChromium();

describe('temporary files of sessions and runners', { skip: chromiumPath ? false : 'no Chromium installed', timeout: 180_000 }, () => {
  const saved = process.env.TMPDIR;
  let root = '';

  before(() => {
    // This process's temporary folder, watched by the test (os.tmpdir() reads TMPDIR each call).
    root = mkdtempSync(join(tmpdir(), 'webdata-temp-files-'));
    process.env.TMPDIR = root;
  });
  after(() => {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    rmSync(root, { recursive: true, force: true });
  });

  test('a Chromium process and a node runner on it, used then killed: the temporary folder is empty again', async () => {
    const proc = await launchChromiumProcess({ chromiumPath: chromiumPath as string });
    const env = readFileSync(`/proc/${proc.pid}/environ`, 'utf8').split('\0');
    assert.ok(env.includes(`TMPDIR=${join(proc.userDataDir, 'tmp')}`), 'Chromium keeps its temporary files in its user-data-dir');
    const targets = (await (await fetch(`http://127.0.0.1:${proc.port}/json/list`)).json()) as Array<{ id: string; type: string }>;
    const page = targets.find((t) => t.type === 'page');
    assert.ok(page, JSON.stringify(targets));
    const runner = new NodeRunner(proc.wsEndpoint);
    const result = await runner.run('await page.title()', page.id, 30);
    assert.equal(result.exitCode, 0, JSON.stringify(result));
    assert.ok(readdirSync(root).length > 0, 'the session and the runner had files there while they ran');
    runner.close();
    await proc.kill();
    const left = await until('the temporary folder to empty', async () => {
      const names = readdirSync(root);
      return names.length === 0 ? names : undefined;
    }, 30_000).catch(() => readdirSync(root));
    assert.deepEqual(left, []);
  });
});

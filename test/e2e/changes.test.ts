// Change reports on the dev server: runs of one schedule over the demo site, whose revision
// changes between runs (3 pages changed, 1 removed, 2 added per revision), report exactly those
// pages; a run stores only new and changed pages, unchanged ones as a reference to the copy.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhookSignature } from 'webdata-client';
import type { DevStack } from '../../src/cli/dev-stack.js';
import { deleteSchedule, schedulePipeline, triggerSchedule } from '../../src/client/schedules.js';
import { urlKey } from '../../packages/contract/src/url-keys.js';
import { CHANGES_SIGNATURE_HEADER, seriesRuns } from '../../src/activities/index.js';
import type { PipelineResult } from '../../src/workflows/state.js';
import { addedPostPath, buildManifest, REVISED_PATHS } from '../../packages/service/src/demo-site/index.js';
import { main } from '../../src/cli/main.js';
import { startStack } from '../helpers/stack.js';

const SECRET = 'changes-secret-0123456789';
const SCHEDULE = 'watch-demo';

let stack: DevStack;
let site: string;
let receiver: Server;
let receiverUrl: string;
const deliveries: Array<{ body: string; signature: string | undefined }> = [];

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('changes', () => {
  before(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        deliveries.push({ body: Buffer.concat(chunks).toString('utf8'), signature: req.headers[CHANGES_SIGNATURE_HEADER] as string | undefined });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/changes`;
    // The summaries go to this receiver on 127.0.0.1: the stack's worker allows its host:port.
    stack = await startStack({ changesWebhookSecret: SECRET, allowPrivateHosts: [new URL(receiverUrl).host] });
    site = stack.service.siteUrl as string;
    await schedulePipeline(stack.temporal.client, {
      url: `${site}/`,
      stages: { interact: false },
      changes: { series: SCHEDULE, webhookUrl: receiverUrl },
    }, { scheduleId: SCHEDULE, every: '24h', paused: true, taskQueue: stack.taskQueue });
  });

  after(async () => {
    await deleteSchedule(stack.temporal.client, SCHEDULE).catch(() => {});
    await new Promise((ok) => receiver?.close(ok));
    await stack?.close();
  });

  /** Triggers the schedule once and waits for that run's result. */
  async function triggerRun(n: number): Promise<{ workflowId: string; result: PipelineResult }> {
    const workflowId = await triggerSchedule(stack.temporal.client, SCHEDULE, { timeoutMs: 180_000 });
    const info = (await stack.temporal.client.schedule.getHandle(SCHEDULE).describe()).info;
    assert.equal(info.numActionsTaken, n, 'one run per trigger');
    const result = await stack.temporal.client.workflow.getHandle<() => Promise<PipelineResult>>(workflowId).result();
    return { workflowId, result };
  }

  interface StoredPage { url: string; change: unknown; copyOf: unknown; markdown: unknown; diff: unknown; jobId: string }

  async function pagesOf(runId: string): Promise<Map<string, StoredPage>> {
    const out = new Map<string, StoredPage>();
    for await (const d of stack.store.readDocuments(runId)) {
      if (d.kind !== 'crawl' && d.kind !== 'batch') continue;
      assert.ok(!out.has(urlKey(d.url)), `${d.url} stored twice in ${runId}`);
      out.set(urlKey(d.url), { url: d.url, change: d.change, copyOf: d.copyOf, markdown: d.markdown, diff: d.diff, jobId: d.jobId });
    }
    return out;
  }

  const keys = (paths: readonly string[]) => paths.map((p) => urlKey(`${site}${p}`)).sort();
  const urlsOf = (pages: Map<string, StoredPage>, change: string) => [...pages].filter(([, p]) => p.change === change).map(([k]) => k).sort();

  describe('runs of a schedule report what changed on the site', () => {
    let first: { workflowId: string; result: PipelineResult };
    let firstPages: Map<string, StoredPage>;

    test('the first run of the series: every page is new and stored', async () => {
      first = await triggerRun(1);
      const { result } = first;
      assert.equal(result.status, 'completed', JSON.stringify(result.stages));
      const changes = result.changes;
      assert.ok(changes, 'the result carries a change report');
      assert.equal(changes.series, SCHEDULE);
      assert.equal(changes.previousRunId, null);
      firstPages = await pagesOf(result.runId);
      assert.ok(firstPages.size >= 50, `first run stored ${firstPages.size} pages`);
      assert.deepEqual(changes.counts, { new: firstPages.size, changed: 0, unchanged: 0, removed: 0 });
      assert.equal(result.documents, firstPages.size);
      for (const p of firstPages.values()) assert.equal(typeof p.markdown, 'string', `${p.url} stored with its content`);
      // The pages the next revision touches were crawled in this one.
      for (const k of keys([...REVISED_PATHS, '/blog/post-7'])) assert.ok(firstPages.has(k), `${k} in the first run`);
      assert.deepEqual((await seriesRuns(stack.store, SCHEDULE)).map((r) => r.runId), [result.runId]);
    });

    test('after the site changed 3 pages, removed 1 and added 2, the next run reports exactly those and stores only them', async () => {
      const before0 = buildManifest({ origin: site, revision: 0 });
      const after1 = buildManifest({ origin: site, revision: 1 });
      const removedPaths = before0.entries.filter((e) => !after1.entries.some((x) => x.url === e.url)).map((e) => e.path);
      const addedPaths = after1.entries.filter((e) => !before0.entries.some((x) => x.url === e.url)).map((e) => e.path);
      assert.deepEqual(removedPaths, ['/blog/post-7']);
      assert.deepEqual(addedPaths.sort(), [addedPostPath(1, 1), addedPostPath(1, 2)].sort());
      stack.service.handle.site?.setRevision(1);

      const { result } = await triggerRun(2);
      assert.equal(result.status, 'completed', JSON.stringify(result.stages));
      const changes = result.changes;
      assert.ok(changes);
      assert.equal(changes.previousRunId, first.result.runId);
      const pages = await pagesOf(result.runId);
      assert.deepEqual(urlsOf(pages, 'changed'), keys(REVISED_PATHS));
      assert.deepEqual(urlsOf(pages, 'new'), keys(addedPaths));
      assert.deepEqual(changes.counts, { new: 2, changed: 3, unchanged: firstPages.size - 4, removed: 1 });
      assert.deepEqual(changes.removed.map(urlKey), keys(removedPaths));
      const removedList: string[] = [];
      for await (const l of stack.store.readLinks(result.runId, 'removed')) removedList.push(urlKey(l.url));
      assert.deepEqual(removedList, keys(removedPaths));

      for (const p of pages.values()) {
        if (p.change === 'unchanged') {
          // Not stored again: a stub that names the copy in the first run.
          assert.equal(p.markdown, undefined, `${p.url} stored again`);
          assert.deepEqual(p.copyOf, { runId: first.result.runId, jobId: firstPages.get(urlKey(p.url))?.jobId });
        } else {
          assert.equal(typeof p.markdown, 'string', `${p.url} (${String(p.change)}) stored with its content`);
        }
      }
      for (const k of keys(REVISED_PATHS)) {
        const diff = String(pages.get(k)?.diff ?? '');
        assert.match(diff, /^\+.*Revised in revision 1/m, `diff of ${k}`);
        assert.match(diff, /^--- /m);
      }
      assert.equal(changes.webhook, 'sent (204)');
      assert.deepEqual((await seriesRuns(stack.store, SCHEDULE)).map((r) => r.runId), [first.result.runId, result.runId]);
    });

    test('a run with nothing changed stores no page content, and its stubs still name the original copies', async () => {
      const second = (await seriesRuns(stack.store, SCHEDULE)).at(-1)?.runId as string;
      const { result } = await triggerRun(3);
      assert.equal(result.status, 'completed', JSON.stringify(result.stages));
      assert.equal(result.changes?.previousRunId, second);
      const pages = await pagesOf(result.runId);
      assert.deepEqual(result.changes?.counts, { new: 0, changed: 0, unchanged: pages.size, removed: 0 });
      for (const p of pages.values()) {
        assert.equal(p.markdown, undefined);
        const copy = p.copyOf as { runId: string };
        // Chains collapse: a page unchanged since the first run points at the first run.
        const since = keys([...REVISED_PATHS, addedPostPath(1, 1), addedPostPath(1, 2)]).includes(urlKey(p.url)) ? second : first.result.runId;
        assert.equal(copy.runId, since, p.url);
      }
    });

    test('the summary webhook: one signed delivery per run with the counts', () => {
      assert.equal(deliveries.length, 3);
      for (const d of deliveries) assert.ok(verifyWebhookSignature(d.body, d.signature, SECRET), 'signature verifies');
      const bodies = deliveries.map((d) => JSON.parse(d.body) as { type: string; series: string; counts: Record<string, number>; changed: string[] });
      assert.deepEqual(bodies.map((b) => b.type), ['webdata.changes', 'webdata.changes', 'webdata.changes']);
      assert.deepEqual(bodies[1].counts, { new: 2, changed: 3, unchanged: firstPages.size - 4, removed: 1 });
      assert.deepEqual(bodies[1].changed.map(urlKey).sort(), keys(REVISED_PATHS));
    });

    test('webdata changes prints the latest run, and --run with --diff an earlier one', async () => {
      const runs = await seriesRuns(stack.store, SCHEDULE);
      const out: string[] = [];
      const log = console.log;
      console.log = (...args: unknown[]) => { out.push(args.join(' ')); };
      let code: number;
      let codeDiff: number;
      let diffOut: string[];
      try {
        code = await main(['changes', SCHEDULE, '--store', stack.storeSpec]);
        diffOut = out.splice(0);
        codeDiff = await main(['changes', SCHEDULE, '--run', runs[1].runId, '--diff', '--store', stack.storeSpec]);
      } finally {
        console.log = log;
      }
      assert.equal(code, 0);
      const latest = diffOut.join('\n');
      assert.match(latest, new RegExp(`series ${SCHEDULE}: 3 completed runs`));
      assert.match(latest, /0 new · 0 changed · \d+ unchanged · 0 removed/);
      assert.equal(codeDiff, 0);
      const earlier = out.join('\n');
      assert.match(earlier, /2 new · 3 changed · \d+ unchanged · 1 removed/);
      for (const p of REVISED_PATHS) assert.ok(earlier.includes(`${site}${p}`), `${p} listed`);
      assert.ok(earlier.includes(`${site}/blog/post-7`), 'removed page listed');
      assert.match(earlier, /^\+.*Revised in revision 1/m);
    });
  });
});

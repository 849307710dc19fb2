// robots.txt end to end on the real stack (Temporal dev server, worker, local service, demo
// site): the demo site's robots.txt disallows /private/ for `*`, and every page's footer links
// /private/, so map lists it. The crawl skips it (robotsBlocked) and batch scrape would not
// check: the pipeline must leave it out and count it. With ignoreRobotsTxt, where the team may,
// it is stored.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { DevStack } from '../../src/cli/dev-stack.js';
import { formatSummary } from '../../src/cli/summary.js';
import type { PipelineInput } from '../../src/workflows/input.js';
import type { LocalService } from '../../packages/service/src/app.js';
import { runToEnd, startStack, storedUrls } from '../helpers/stack.js';

let stack: DevStack;
let site: string;

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('robots', () => {
  before(async () => {
    stack = await startStack();
    site = stack.service.siteUrl as string;
  });
  after(async () => {
    await stack?.close();
  });

  const isPrivate = (url: string) => new URL(url).pathname.startsWith('/private/');

  const input = (extra: Partial<PipelineInput> = {}): PipelineInput => ({
    url: `${site}/`,
    select: { include: ['^/about', '^/private/'] },
    stages: { interact: false },
    ...extra,
  });

  async function listOf(runId: string, list: string): Promise<string[]> {
    const urls: string[] = [];
    for await (const link of stack.store.readLinks(runId, list)) urls.push(link.url);
    return urls;
  }

  describe('robots.txt', () => {
    test('a page robots.txt disallows is mapped but never stored, and counted as skipped', async () => {
      const { id, result } = await runToEnd(stack, input());
      assert.notEqual(result.status, 'failed', JSON.stringify(result.stages));
      const mappedPrivate = (await listOf(id, 'mapped')).filter(isPrivate);
      assert.ok(mappedPrivate.length >= 1, 'map lists the disallowed page (linked from every footer)');

      const stored = await storedUrls(stack, id);
      assert.ok(stored.some((u) => new URL(u).pathname === '/about'), `an allowed page is stored: ${stored.join(', ')}`);
      assert.deepEqual(stored.filter(isPrivate), [], 'no disallowed page stored');

      // The crawl skips them itself (robotsBlocked, when it gets there within its limit); the
      // batch stage leaves them out of what the crawl missed.
      const { batch } = result.stages;
      const missedPrivate = (await listOf(id, 'missing')).filter(isPrivate);
      assert.ok(missedPrivate.length >= 1);
      assert.equal(batch?.skipped?.robots, missedPrivate.length, JSON.stringify(batch));
      assert.deepEqual((await listOf(id, 'missing.robots')).sort(), missedPrivate.sort());
      assert.match(formatSummary(result, { workflowId: id }), /batch .*\d+ skipped \(robots\.txt\)/);
    });

    test('with ignoreRobotsTxt (the team may) the disallowed pages are stored', async () => {
      const { id, result } = await runToEnd(stack, input({ ignoreRobotsTxt: true }));
      assert.equal(result.status, 'completed', JSON.stringify(result.stages));
      const selectedPrivate = (await listOf(id, 'selected')).filter(isPrivate);
      assert.ok(selectedPrivate.length >= 1);
      const stored = new Set(await storedUrls(stack, id));
      for (const url of selectedPrivate) assert.ok(stored.has(url), `${url} stored (crawl or batch): ${[...stored].join(', ')}`);
      assert.equal(result.stages.batch?.skipped, undefined);
    });

    test('with ignoreRobotsTxt but a team without the feature (403), the check stays on', async () => {
      const ctx = (stack.service.handle as unknown as LocalService).context;
      const teams = ctx.teams.all();
      const before = teams.map((t) => t.features.ignoreRobotsTxt);
      for (const t of teams) t.features.ignoreRobotsTxt = false;
      try {
        const { id, result } = await runToEnd(stack, input({ ignoreRobotsTxt: true, stages: { interact: false, support: false } }));
        assert.equal(result.stages.crawl?.status, 'failed');
        assert.match(result.stages.crawl?.reason ?? '', /forbidden|403|ignoreRobotsTxt/i);
        const stored = await storedUrls(stack, id);
        assert.deepEqual(stored.filter(isPrivate), [], 'no disallowed page stored');
        assert.ok((result.stages.batch?.skipped?.robots ?? 0) >= 1, JSON.stringify(result.stages.batch));
      } finally {
        teams.forEach((t, i) => { t.features.ignoreRobotsTxt = before[i]; });
      }
    });
  });
});

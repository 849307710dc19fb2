// Two batch jobs of one team running at once (issue 23): the team's concurrency N is shared by
// both, one job's maxConcurrency M < N holds within it, and GET /v2/team/queue-status is exact
// while they run. Every page is held in the engine until the test lets it go, one at a time, so
// each check is made at a state that cannot move on by itself: no timing, only events.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ScrapeEngine } from '../src/core/scrape.js';
import { eventually, realScrapeEngine, startJobsStack, team, waitForJob, type JobsStack } from './jobs-helpers.js';

const N = 4; // the team's concurrency
const M = 2; // job X's maxConcurrency

/** Holds every page until `releaseOne`; counts pages in flight per job (by its URL set). */
function gatedEngine(inner: ScrapeEngine, jobOf: (url: string) => 'x' | 'y') {
  const held: Array<() => void> = [];
  const inFlight = { x: 0, y: 0 };
  const maxInFlight = { x: 0, y: 0, team: 0 };
  const done = { x: 0, y: 0 };
  const engine: ScrapeEngine = {
    async scrape(url, options, ctx) {
      const job = jobOf(url);
      inFlight[job] += 1;
      maxInFlight[job] = Math.max(maxInFlight[job], inFlight[job]);
      maxInFlight.team = Math.max(maxInFlight.team, inFlight.x + inFlight.y);
      try {
        await new Promise<void>((resolve) => held.push(resolve));
        return await inner.scrape(url, options, ctx);
      } finally {
        inFlight[job] -= 1;
        done[job] += 1;
      }
    },
    close: () => inner.close(),
  };
  return {
    engine,
    inFlight,
    maxInFlight,
    done,
    held: () => held.length,
    /** Lets the oldest held page go. */
    releaseOne(): void {
      const next = held.shift();
      assert.ok(next, 'no page held');
      next();
    },
  };
}

let stack: JobsStack;
let gate: ReturnType<typeof gatedEngine>;
let site: string;
const X = Array.from({ length: 6 }, (_, i) => `/blog/post-${i + 1}`);
const Y = Array.from({ length: 8 }, (_, i) => `/blog/post-${i + 7}`);

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('queue status', () => {
  before(async () => {
    gate = gatedEngine(realScrapeEngine(), (url) => (X.includes(new URL(url).pathname) ? 'x' : 'y'));
    stack = await startJobsStack({ engine: gate.engine, teams: [team('a', { credits: 100_000, concurrency: N })] });
    site = stack.site.url;
  });
  after(() => stack.close());

  async function queueStatus() {
    const res = await stack.call('GET', '/v2/team/queue-status');
    assert.equal(res.status, 200, res.text);
    const { jobsInQueue, activeJobsInQueue, waitingJobsInQueue, maxConcurrency } = res.body as Record<string, number>;
    return { jobsInQueue, activeJobsInQueue, waitingJobsInQueue, maxConcurrency };
  }

  async function start(paths: string[], maxConcurrency?: number): Promise<string> {
    const res = await stack.call('POST', '/v2/batch/scrape', { body: { urls: paths.map((p) => `${site}${p}`), formats: ['rawHtml'], ...(maxConcurrency ? { maxConcurrency } : {}) } });
    assert.equal(res.status, 200, res.text);
    return (res.body as { id: string }).id;
  }

  test(`two jobs of a team of ${N}: job X's maxConcurrency ${M} holds within it, the team's ${N} across both; queue-status exact while they run`, async () => {
    assert.deepEqual(await queueStatus(), { jobsInQueue: 0, activeJobsInQueue: 0, waitingJobsInQueue: 0, maxConcurrency: N });

    const x = await start(X, M);
    await eventually(() => gate.inFlight.x === M, `job X at its ${M} pages in flight`);
    assert.deepEqual(await queueStatus(), { jobsInQueue: X.length, activeJobsInQueue: M, waitingJobsInQueue: X.length - M, maxConcurrency: N });

    const y = await start(Y);
    await eventually(() => gate.inFlight.y === N - M, `job Y in the team's other ${N - M} slots`);
    assert.deepEqual(await queueStatus(), { jobsInQueue: X.length + Y.length, activeJobsInQueue: N, waitingJobsInQueue: X.length + Y.length - N, maxConcurrency: N });

    // One page at a time: after each, the freed slot is taken again, and queue-status counts what is left: pages not started plus those in flight.
    const steps: string[] = [];
    while (gate.done.x + gate.done.y < X.length + Y.length) {
      const before = gate.done.x + gate.done.y;
      gate.releaseOne();
      await eventually(() => gate.done.x + gate.done.y === before + 1, 'the released page done');
      const leftX = X.length - gate.done.x;
      const leftY = Y.length - gate.done.y;
      // Which job the freed slot goes to is the service's choice; how many are taken is not: every
      // slot the two jobs can use (X at most M) is in use again.
      const busy = Math.min(N, Math.min(M, leftX) + leftY);
      await eventually(() => gate.inFlight.x + gate.inFlight.y === busy && gate.held() === busy, `${busy} pages in flight after ${before + 1} pages`);
      assert.ok(gate.inFlight.x <= M, `job X: ${gate.inFlight.x} pages in flight`);
      const want = { jobsInQueue: leftX + leftY, activeJobsInQueue: busy, waitingJobsInQueue: leftX + leftY - busy, maxConcurrency: N };
      // The job's own books follow the engine's: wait for the count, then it must be exact.
      let last = await queueStatus();
      await eventually(async () => {
        last = await queueStatus();
        return last.jobsInQueue === want.jobsInQueue;
      }, `queue-status jobsInQueue ${want.jobsInQueue}`);
      assert.deepEqual(last, want, `after ${before + 1} pages`);
      steps.push(`${before + 1}:${last.activeJobsInQueue}/${last.jobsInQueue}(x${gate.inFlight.x})`);
    }

    const [doneX, doneY] = await Promise.all([waitForJob(stack, `/v2/batch/scrape/${x}`), waitForJob(stack, `/v2/batch/scrape/${y}`)]);
    assert.equal(doneX.status, 'completed');
    assert.equal(doneY.status, 'completed');
    assert.equal(doneX.docs.length, X.length);
    assert.equal(doneY.docs.length, Y.length);
    assert.equal(gate.maxInFlight.x, M, `job X: at most ${M} pages in flight`);
    assert.equal(gate.maxInFlight.team, N, `the team: at most ${N} pages in flight`);
    const end = await queueStatus();
    assert.deepEqual(end, { jobsInQueue: 0, activeJobsInQueue: 0, waitingJobsInQueue: 0, maxConcurrency: N });
    console.log(`queue-status after each page (active/in queue): ${steps.join(' ')}`);
  });
});

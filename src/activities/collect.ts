// Collectors: page a job's results into the store. The cursor (skip) is heartbeated after each
// stored page, so a retry or a restarted worker resumes there; appends are idempotent by
// job id + URL, so a page stored just before a crash is not stored twice.
//
// `followJob` does it while the job runs: pages go into the store as the service reports them,
// so when the job ends only the tail is left. It detects services that ignore `skip` (they
// answer every document again, or page on their own) and hands back to one collect at the end.
import { WebDataApiError } from 'webdata-client';
import type { JobErrorsResponse, JobStatusResponse, ScrapeDocument } from 'webdata-contract';
import { urlKey } from 'webdata-contract';
import type { DocumentInput } from 'webdata-storage';
import { refOf } from 'webdata-storage';
import { ChangeTracker } from './changes.js';
import { currentScope } from './context.js';
import type { ActivityDeps } from './deps.js';
import { mapFailures } from './failures.js';
import { jobSummary } from './jobs.js';
import { storedKeys } from './lost-job.js';
import { beatingWith, RobotsBook } from './robots.js';
import type { CollectCursor, CollectInput, CollectResult, FollowJobInput, FollowJobResult, JobStatus } from './types.js';

type Cursor = CollectCursor;
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
/** Shortest time between two heartbeats of a collector's cursor (its heartbeat timeout is 10 s). */
const CURSOR_BEAT_MS = 1_000;
/** The follower's first pause once a running job shows nothing left to scrape (see followJob). */
const ENDING_PAUSE_MS = 25;

/** Why this status page shows the service ignores `skip`/`limit`, or undefined when it honours them. */
export function ignoresPaging(res: JobStatusResponse, askedSkip: number, pageSize: number, repeated: boolean): string | undefined {
  if (repeated) return `a status page at skip ${askedSkip} repeated documents already read`;
  if (!res.next) return undefined;
  let next: URL;
  try {
    next = new URL(res.next);
  } catch {
    return undefined;
  }
  const skip = Number(next.searchParams.get('skip') ?? 0);
  const limit = next.searchParams.get('limit');
  if (skip < askedSkip + (res.data?.length ?? 0)) return `a running job's next goes back to skip ${skip}`;
  if (limit !== null && Number(limit) !== pageSize) return `a running job's next pages by ${limit}, not by the ${pageSize} asked`;
  return undefined;
}

/** Waits `ms`, or less when `signal` aborts. */
function idle(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** A job's errors, or none (and `missing()` called) when this service has no errors route. */
async function jobErrorsOrNone(read: () => Promise<JobErrorsResponse>, missing: () => void): Promise<Pick<JobErrorsResponse, 'errors' | 'robotsBlocked'>> {
  try {
    return await read();
  } catch (err) {
    if (!(err instanceof WebDataApiError) || err.kind !== 'not_available') throw err;
    missing();
    return { errors: [], robotsBlocked: [] };
  }
}

export function toDocumentInput(kind: string, doc: ScrapeDocument): DocumentInput | undefined {
  const metadata = (doc.metadata ?? {}) as Record<string, unknown>;
  const url = (metadata.sourceURL ?? metadata.url) as string | undefined;
  if (!url) return undefined;
  const { metadata: _m, ...content } = doc;
  return { ...content, url, kind, metadata };
}

export function createCollectors(deps: ActivityDeps, robotsBook = new RobotsBook(deps)) {
  /** One collection: reads status pages, stores their documents, and sums up at the end. */
  function session(input: CollectInput) {
    const scope = currentScope();
    const { client, store } = deps;
    const kind = input.kind;
    const pageSize = input.pageSize ?? deps.collectPageSize ?? 100;
    const cursor: Cursor = { ...(scope.lastHeartbeat<Cursor>() ?? input.cursor ?? { skip: 0, pages: 0, written: 0 }) };
    const tracker = input.changes
      ? new ChangeTracker(store, input.runId, input.jobId, input.changes.previousRunId, () => scope.heartbeat(cursor))
      : undefined;
    // The cursor's heartbeat at most every CURSOR_BEAT_MS: each call crosses into the SDK (and
    // its payload encoding) although the server hears of it only every few seconds anyway. A
    // retry resumes from the last one sent; appends are idempotent by job id + URL, so pages
    // stored since are not stored twice.
    let beatAt = 0;
    const beat = () => {
      const now = Date.now();
      if (now - beatAt < CURSOR_BEAT_MS) return;
      beatAt = now;
      scope.heartbeat(cursor);
    };
    // Read once per call: what the lost job stored does not change any more.
    let skipKeys: Promise<Set<string>> | undefined;
    const storedElsewhere = () => (skipKeys ??= storedKeys(store, input.runId, input.skipStoredOf ?? [], beat));
    // A write may wait on another writer's lock (up to the store's lock timeout, longer than
    // the heartbeat timeout): heartbeat the cursor meanwhile so the wait is not taken for a dead worker.
    const storing = <R>(write: () => Promise<R>) => beatingWith(scope.heartbeat, () => cursor, write);

    const read = (skip: number) => {
      const page = { skip, limit: pageSize };
      return kind === 'crawl'
        ? client.getCrawlStatus(input.jobId, page, { signal: scope.signal })
        : client.getBatchScrapeStatus(input.jobId, page, { signal: scope.signal });
    };

    /** Stores one status page's documents not in `seen`; moves and heartbeats the cursor. */
    async function storePage(res: JobStatusResponse, seen: Set<string>): Promise<{ fresh: number; repeated: boolean }> {
      cursor.pages += 1;
      const docs = (res.data ?? []).map((d) => toDocumentInput(kind, d)).filter((d): d is DocumentInput => d !== undefined);
      const repeated = docs.length > 0 && seen.has(docs[0].url);
      // A page is "new" if it holds a URL this call has not seen: deployments that ignore
      // skip/limit return the same items again, and a running job's next repeats the skip.
      const fresh = docs.filter((d) => !seen.has(d.url));
      for (const d of fresh) seen.add(d.url);
      const elsewhere = input.skipStoredOf?.length ? await storedElsewhere() : undefined;
      const unstored = elsewhere ? fresh.filter((d) => !elsewhere.has(urlKey(d.url))) : fresh;
      // Scrape and batch scrape do not read robots.txt on the service: a disallowed page is
      // kept as a failure, never stored. The failure is written first, so a retry that
      // resumes here drops the same page again (the check is cached per run and origin).
      const { keep, blocked } = input.robots
        ? await beatingWith(scope.heartbeat, () => cursor, () => splitByRobots(input.runId, unstored, robotsBook.agentFor(input.robots?.userAgent), scope.signal))
        : { keep: unstored, blocked: [] };
      if (blocked.length > 0) {
        await storing(() => store.appendFailures(input.runId, input.jobId, blocked.map((d) => ({ url: d.url, error: 'disallowed by robots.txt; not stored', code: 'ROBOTS_BLOCKED' }))));
        cursor.robots = (cursor.robots ?? 0) + blocked.length;
      }
      // A series run stores unchanged pages as stubs pointing at the earlier copy.
      const toStore = tracker && keep.length > 0 ? await tracker.track(keep) : keep;
      if (toStore.length > 0) cursor.written += await storing(() => store.appendDocuments(input.runId, input.jobId, toStore));
      cursor.skip += res.data?.length ?? 0;
      if (typeof res.creditsUsed === 'number' && res.creditsUsed >= 0) cursor.creditsUsed = res.creditsUsed;
      beat();
      return { fresh: fresh.length, repeated };
    }

    /** Failures, counts and the result, once every page of an ended job is stored. */
    async function finish(res: JobStatusResponse): Promise<CollectResult> {
      // Failed pages are kept too, so a run's report and support ask can see them.
      // The errors route is auxiliary: a service without it (the open-source server has no
      // batch errors route) lists no failures, and the collected data stands.
      const notAvailable: string[] = [];
      const errors = await jobErrorsOrNone(() => kind === 'crawl'
        ? client.getCrawlErrors(input.jobId, { signal: scope.signal })
        : client.getBatchScrapeErrors(input.jobId, { signal: scope.signal }), () => notAvailable.push(`${kind === 'crawl' ? 'crawl' : 'batch scrape'} errors`));
      const failures = [
        ...errors.errors.map((e) => ({ url: e.url, error: e.error, code: e.code, timestamp: e.timestamp })),
        ...errors.robotsBlocked.map((url) => ({ url, error: 'blocked by robots.txt', code: 'ROBOTS_BLOCKED' })),
      ];
      if (failures.length > 0) await storing(() => store.appendFailures(input.runId, input.jobId, failures));

      const counts = await store.count(input.runId, { jobId: input.jobId });
      const robotsSkipped = errors.robotsBlocked.length + (cursor.robots ?? 0);
      // A job that ended short of its limit: the limit-cut check needs the team's credits left,
      // read here (one request) rather than by an activity of the workflow after this one, which
      // would cost the run's tail a workflow task and an activity round trip.
      const teamCreditsLeft = input.limitCut && counts.documents + counts.failures < input.limitCut.requested
        ? await client.getCreditUsage({ signal: scope.signal }).then((r) => r.data.remainingCredits, () => undefined)
        : undefined;
      return {
        jobId: input.jobId,
        kind,
        status: res.status as JobStatus,
        documents: counts.documents,
        written: cursor.written,
        failures: counts.failures,
        ...(notAvailable.length > 0 ? { notAvailable } : {}),
        creditsUsed: res.creditsUsed ?? 0,
        pages: cursor.pages,
        ref: refOf(store, input.runId, { jobId: input.jobId }),
        ...(robotsSkipped > 0 || input.robots ? { skipped: { robots: robotsSkipped } } : {}),
        cursor: { ...cursor },
        ...(typeof teamCreditsLeft === 'number' ? { teamCreditsLeft } : {}),
      };
    }

    return { scope, cursor, pageSize, read, storePage, finish, beat };
  }

  /** Collects a job's results from the cursor on, until a page brings nothing new or no `next`. */
  async function collect(input: CollectInput): Promise<CollectResult> {
    return mapFailures(async () => {
      const s = session(input);
      const seen = new Set<string>();
      for (;;) {
        const res = await s.read(s.cursor.skip);
        const { fresh } = await s.storePage(res, seen);
        if (fresh === 0 || !res.next) return s.finish(res);
      }
    });
  }

  /**
   * Follows a job from when it starts: stores each status page as the service reports it, reads
   * again at once while full pages come, and otherwise when a full page should be there at the
   * job's pace, at most every `followIdleMs` (a service that held the request until something
   * changed has used that time already). Returns
   * when the job ended and its tail is stored, when this call's slice is over or it is
   * cancelled (with the cursor, for the next call), or when the service ignores `skip`.
   */
  async function followJob(input: FollowJobInput): Promise<FollowJobResult> {
    const began = Date.now();
    const sliceMs = input.sliceMs ?? deps.followSliceMs ?? 5 * 60_000;
    const idleMs = deps.followIdleMs ?? 500;
    const maxIdleMs = Math.max(idleMs, deps.followMaxIdleMs ?? 1_000);
    // The pause grows (×1.5 up to maxIdleMs) while reads bring less than a quarter page: a slow
    // job costs reads in proportion to its pages, not to its duration (each read is a request
    // and a store append); a read that brings more goes back to idleMs.
    let pause = idleMs;
    // A job near its end: every page it knows of scraped (completed = total: nothing queued or
    // in flight), or the pages left would be scraped within the idle pause at the pace the job
    // has kept since this call's first read. Waiting out the pause would leave the status that
    // says it ended unread for up to maxIdleMs, the whole of the run's tail: read again at half
    // the time the rest should take (at least `ending`, ENDING_PAUSE_MS while the job moves,
    // doubling while it does not), never later than the pause.
    let ending = ENDING_PAUSE_MS;
    let first: { completed: number; at: number } | undefined;
    let lastCompleted = -1;
    // The longest next wait: it at most doubles from one wait to the next, from ENDING_PAUSE_MS,
    // as a job's pace in this call's first reads is a poor guide (robots.txt and sitemaps first).
    let longest = ENDING_PAUSE_MS;
    return mapFailures(async () => {
      const s = session(input);
      const { signal } = s.scope;
      // Only the last two pages' URLs: enough to see a service repeat itself, bounded in memory.
      let seen = new Set<string>();
      let before = new Set<string>();
      const handBack = (): FollowJobResult => ({ kind: 'slice', cursor: s.cursor });
      try {
        for (;;) {
          if (signal.aborted) return handBack();
          const askedAt = Date.now();
          const askedSkip = s.cursor.skip;
          const res = await s.read(askedSkip);
          first ??= { completed: res.completed, at: Date.now() };
          const known = new Set([...before, ...seen]);
          const { fresh, repeated } = await s.storePage(res, known);
          before = seen;
          seen = new Set((res.data ?? []).map((d) => toDocumentInput(input.kind, d)?.url).filter((u): u is string => u !== undefined));
          if (TERMINAL.has(res.status)) {
            if (fresh === 0 || !res.next) return { kind: 'done', collected: await s.finish(res), summary: jobSummary(input.kind, input.jobId, res) };
            continue;
          }
          const ignored = ignoresPaging(res, askedSkip, s.pageSize, repeated && askedSkip > 0);
          if (ignored) return { kind: 'at-end', cursor: s.cursor, reason: ignored };
          if (Date.now() - began >= sliceMs) return handBack();
          // Behind (a full page came): read on at once. Caught up: read at most every idleMs,
          // so pages come in batches rather than one request per scraped page.
          if (fresh > 0 && (res.data?.length ?? 0) >= s.pageSize) continue;
          pause = fresh * 4 >= s.pageSize ? idleMs : Math.min(maxIdleMs, Math.round(pause * 1.5));
          const now = Date.now();
          const rate = res.completed > first.completed ? (res.completed - first.completed) / Math.max(1, now - first.at) : 0;
          const left = res.total - res.completed;
          const eta = res.total <= 0 ? Infinity : left <= 0 ? 0 : rate > 0 ? left / rate : Infinity;
          const near = eta < pause;
          ending = !near || res.completed !== lastCompleted ? ENDING_PAUSE_MS : Math.min(maxIdleMs, ending * 2);
          lastCompleted = res.completed;
          // A job that scrapes faster than a page per pause: read when a full page should be
          // there, so the follower keeps up with it (one read per page of documents, as when it
          // is behind) instead of finding most of the job waiting after the pause.
          const unread = Math.max(0, res.completed - s.cursor.skip);
          const fullPage = rate > 0 ? Math.max(ENDING_PAUSE_MS, (s.pageSize - unread) / rate) : Infinity;
          const paced = Math.min(pause, fullPage, longest);
          const wait = near ? Math.min(paced, Math.max(ending, eta / 2)) : paced;
          longest = Math.max(ENDING_PAUSE_MS, wait * 2);
          const held = now - askedAt;
          if (held < wait) await idle(wait - held, signal);
          s.beat();
        }
      } catch (err) {
        // Cancelled (a continue-as-new hands over, or the run was cancelled): what is stored
        // stays stored, and the cursor tells the next call where to go on.
        if (signal.aborted) return handBack();
        // The job is gone: the follower ends here, every page it read stored, so the stage can
        // take stock of the store knowing nothing more is being written for this job.
        if (err instanceof WebDataApiError && err.kind === 'not_found') return { kind: 'lost', cursor: s.cursor, error: err.message };
        throw err;
      }
    });
  }

  async function splitByRobots(runId: string, docs: DocumentInput[], agent: string, signal: AbortSignal) {
    const keep: DocumentInput[] = [];
    const blocked: DocumentInput[] = [];
    const pages = docs.map((d) => [d.url, typeof d.metadata?.url === 'string' ? d.metadata.url : undefined]);
    const verdicts = await robotsBook.allowsEach(runId, pages, agent, signal);
    docs.forEach((d, i) => (verdicts[i] ? keep : blocked).push(d));
    return { keep, blocked };
  }

  return {
    collect,
    followJob,
    collectCrawl: (input: Omit<CollectInput, 'kind'> & { kind?: 'crawl' }) => collect({ ...input, kind: 'crawl' }),
    collectBatch: (input: Omit<CollectInput, 'kind'> & { kind?: 'batch' }) => collect({ ...input, kind: 'batch' }),
  };
}

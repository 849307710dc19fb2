// robots.txt: the pipeline's own check, because scrape and batch scrape do not read robots.txt
// on the service (only crawl does). Fetched once per origin per run (per worker process) and
// used to filter a stored link list before a batch, and to drop collected documents.
//
// Whose rules: the service's robots agent. The local service fetches as
// "Mozilla/5.0 (compatible; WebDataBot/2.0)" and honours the group of its product token
// `WebDataBot`, falling back to `User-agent: *` (the open-source crawler does the same with its
// own token). robots-parser picks the group the same way: the most specific matching group,
// else `*`. DEFAULT_ROBOTS_USER_AGENT is that token; set ActivityDeps.robotsUserAgent (worker:
// WEBDATA_ROBOTS_USER_AGENT) to the token of the service you call; a crawl's `robotsUserAgent`
// overrides it for that run.
//
// Fetch outcomes (RFC 9309 §2.3.1):
//  - 2xx: the rules (first 512 KiB, redirects followed).
//  - 4xx, including 404 ("unavailable"): allow everything, as the RFC says.
//  - network error (DNS, connection refused/reset): allow everything. The worker may sit on
//    another network than the service; a missing robots.txt host is treated as "no robots.txt".
//  - 5xx, 429 and timeouts ("unreachable"): disallow everything for the origin, as the RFC
//    requires (a crawler MUST assume complete disallow). One quick retry first. 429 counts as
//    unreachable: the site is there but refuses us now, so nothing is known to be allowed.
//    Inside an activity, that verdict is final only on its ROBOTS_UNREACHABLE_ATTEMPTS-th
//    attempt: earlier ones fail retryably (type robots_unreachable) and Temporal tries again
//    after its backoff, each time with a longer fetch timeout. A site that was only slow for a
//    moment (seen at scale: a busy machine timed out twice and a run lost 42 pages) is read.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import robotsParserModule from 'robots-parser';
import type { LinkEntry } from 'webdata-storage';
import { refOf } from 'webdata-storage';
import { currentScope } from './context.js';
import type { ActivityDeps } from './deps.js';
import type { RobotsFilterInput, RobotsFilterResult } from './types.js';

/** Product token of the service's crawler (the local service's DEFAULT_ROBOTS_AGENT). */
export const DEFAULT_ROBOTS_USER_AGENT = 'WebDataBot';
const DEFAULT_TIMEOUT_MS = 5_000;
/** The attempt of an activity on which an unreachable robots.txt becomes "disallow all". */
export const ROBOTS_UNREACHABLE_ATTEMPTS = 4;
const MAX_ROBOTS_BYTES = 512 * 1024;
const MAX_CACHED = 2_000;
const SAMPLE = 5;
const CHUNK = 1000;

interface Robot {
  isAllowed(url: string, ua?: string): boolean | undefined;
}

// CommonJS module with an ES default export in its typings: the function itself at runtime
// under Node's loader, on `.default` under others.
type RobotsParser = (url: string, contents: string) => Robot;
const robotsParser: RobotsParser =
  (robotsParserModule as unknown as { default?: RobotsParser }).default ?? (robotsParserModule as unknown as RobotsParser);

/** What is known about one origin's robots.txt. */
export type RobotsRules =
  | { kind: 'rules'; robot: Robot }
  | { kind: 'allow-all'; why: string }
  | { kind: 'disallow-all'; why: string; unreachable?: boolean };

export interface RobotsOptions {
  userAgent: string;
  timeoutMs: number;
  fetch: typeof fetch;
}

/** Fetches one robots.txt and classifies the outcome (see the header). Throws only on cancellation. */
export async function loadRobots(origin: string, opts: RobotsOptions, signal?: AbortSignal): Promise<RobotsRules> {
  const url = `${origin}/robots.txt`;
  let last: RobotsRules = { kind: 'disallow-all', why: 'not fetched' };
  for (let attempt = 1; attempt <= 2; attempt++) {
    if (attempt > 1) await new Promise((r) => setTimeout(r, 300));
    signal?.throwIfAborted();
    const timeout = AbortSignal.timeout(opts.timeoutMs);
    try {
      const res = await opts.fetch(url, {
        redirect: 'follow',
        headers: { 'user-agent': `Mozilla/5.0 (compatible; ${opts.userAgent}; robots check by webdata-temporal)`, accept: 'text/plain, */*' },
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      if (res.status >= 200 && res.status < 300) {
        const body = await readCapped(res);
        return { kind: 'rules', robot: robotsParser(res.url || url, body) };
      }
      await res.body?.cancel().catch(() => {});
      if (res.status >= 500 || res.status === 429) {
        last = { kind: 'disallow-all', why: `robots.txt answered ${res.status} (unreachable)`, unreachable: true };
        continue;
      }
      return { kind: 'allow-all', why: `robots.txt answered ${res.status}` };
    } catch (err) {
      if (signal?.aborted) throw err;
      if (timeout.aborted) {
        last = { kind: 'disallow-all', why: `robots.txt timed out after ${opts.timeoutMs} ms (unreachable)`, unreachable: true };
        continue;
      }
      return { kind: 'allow-all', why: `robots.txt not reachable: ${(err as Error).message}` };
    }
  }
  return last;
}

async function readCapped(res: Response): Promise<string> {
  if (!res.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size >= MAX_ROBOTS_BYTES) {
      await reader.cancel().catch(() => {});
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, MAX_ROBOTS_BYTES).toString('utf8');
}

function originOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * robots.txt per run, origin and agent, shared by the filter and the collectors of one worker.
 * Bounded (oldest dropped first); a load cancelled with its activity is forgotten.
 */
export class RobotsBook {
  private readonly entries = new Map<string, Promise<RobotsRules>>();

  constructor(private readonly deps: Pick<ActivityDeps, 'robotsUserAgent' | 'robotsTimeoutMs' | 'robotsFetch'>) {}

  agentFor(userAgent?: string): string {
    return userAgent ?? this.deps.robotsUserAgent ?? DEFAULT_ROBOTS_USER_AGENT;
  }

  async rules(runId: string, origin: string, userAgent: string, signal?: AbortSignal): Promise<RobotsRules> {
    const key = `${runId}\n${origin}\n${userAgent}`;
    const attempt = activityAttempt();
    let entry = this.entries.get(key);
    if (!entry) {
      // Later attempts wait longer: the timeout that made the last one fail may be the machine's.
      const timeoutMs = (this.deps.robotsTimeoutMs ?? DEFAULT_TIMEOUT_MS) * Math.min(Number.isFinite(attempt) ? attempt : 1, ROBOTS_UNREACHABLE_ATTEMPTS);
      entry = loadRobots(origin, { userAgent, timeoutMs, fetch: this.deps.robotsFetch ?? fetch }, signal);
      entry.catch(() => this.entries.delete(key));
      this.entries.set(key, entry);
      while (this.entries.size > MAX_CACHED) this.entries.delete(this.entries.keys().next().value as string);
    }
    const rules = await entry;
    if (rules.kind === 'disallow-all' && rules.unreachable && attempt < ROBOTS_UNREACHABLE_ATTEMPTS) {
      if (this.entries.get(key) === entry) this.entries.delete(key);
      throw ApplicationFailure.retryable(
        `${origin}: ${rules.why}; tried again on the next attempt (this is ${attempt} of ${ROBOTS_UNREACHABLE_ATTEMPTS}) before the origin counts as disallowed`,
        'robots_unreachable',
      );
    }
    return rules;
  }

  /** False when the site's robots.txt disallows any of `urls` (a page and its final URL) for the agent. */
  async allows(runId: string, urls: Array<string | undefined>, userAgent: string, signal?: AbortSignal): Promise<boolean> {
    return (await this.allowsEach(runId, [urls], userAgent, signal))[0];
  }

  /**
   * `allows` for many pages at once (one entry per page: its URLs). Each origin's rules are
   * looked up once per call, not once per URL: a status page of one site holds many pages.
   */
  async allowsEach(runId: string, pages: ReadonlyArray<ReadonlyArray<string | undefined>>, userAgent: string, signal?: AbortSignal): Promise<boolean[]> {
    const byOrigin = new Map<string, RobotsRules>();
    const verdicts: boolean[] = [];
    for (const urls of pages) {
      let allowed = true;
      for (const url of urls) {
        if (!url) continue;
        const origin = originOf(url);
        if (!origin) continue;
        let rules = byOrigin.get(origin);
        if (!rules) {
          rules = await this.rules(runId, origin, userAgent, signal);
          byOrigin.set(origin, rules);
        }
        if (rules.kind === 'disallow-all' || (rules.kind === 'rules' && rules.robot.isAllowed(url, userAgent) === false)) {
          allowed = false;
          break;
        }
      }
      verdicts.push(allowed);
    }
    return verdicts;
  }
}

/** This activity attempt's number; Infinity outside an activity (no retry to wait for: decide now). */
function activityAttempt(): number {
  try {
    return Context.current().info.attempt;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/** Runs `work` while heartbeating `details()` every second (robots fetches may take seconds). */
export async function beatingWith<T>(heartbeat: (details?: unknown) => void, details: () => unknown, work: () => Promise<T>): Promise<T> {
  const timer = setInterval(() => heartbeat(details()), 1_000);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

export function createRobotsActivities(deps: ActivityDeps, book: RobotsBook) {
  const { store } = deps;
  return {
    /**
     * Copies the URLs of `fromList` that the site's robots.txt allows into `toList`; the others
     * go to `skippedList` (default `<toList>.robots`). Idempotent: appends are keyed by URL.
     */
    async filterRobots(input: RobotsFilterInput): Promise<RobotsFilterResult> {
      const scope = currentScope();
      const agent = book.agentFor(input.userAgent);
      const skippedList = input.skippedList ?? `${input.toList}.robots`;
      const allowed: LinkEntry[] = [];
      const skipped: LinkEntry[] = [];
      await beatingWith(scope.heartbeat, () => undefined, async () => {
        for await (const link of store.readLinks(input.runId, input.fromList)) {
          if (await book.allows(input.runId, [link.url], agent, scope.signal)) allowed.push(link);
          else skipped.push(link);
        }
      });
      for (let i = 0; i < allowed.length; i += CHUNK) await store.appendLinks(input.runId, input.toList, allowed.slice(i, i + CHUNK));
      for (let i = 0; i < skipped.length; i += CHUNK) await store.appendLinks(input.runId, skippedList, skipped.slice(i, i + CHUNK));
      if (skipped.length > 0) scope.log.info('robots.txt disallows URLs; not scraped', { agent, skipped: skipped.length, sample: skipped.slice(0, SAMPLE).map((l) => l.url) });
      return {
        count: allowed.length,
        skipped: skipped.length,
        userAgent: agent,
        ref: refOf(store, input.runId, { list: input.toList }),
        skippedRef: refOf(store, input.runId, { list: skippedList }),
        sample: allowed.slice(0, SAMPLE).map((l) => l.url),
        skippedSample: skipped.slice(0, SAMPLE).map((l) => l.url),
      };
    },
  };
}

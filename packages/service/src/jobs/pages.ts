// One page of a job: hold a credit, wait for a team slot, scrape, then record the page
// (charge, keep, webhook) or its failure. Shared by crawl and batch scrape.
import { HttpError } from '../core/http-error.js';
import type { PageDocument, ScrapeOutcome } from '../core/scrape.js';
import { scrapeCredits } from '../billing/prices.js';
import { newJobId } from '../http/ids.js';
import { emitJobEvent } from './events.js';
import { passStallGate } from './stall.js';
import type { JobsRuntime } from './runtime.js';
import type { Job, JobDocument } from './types.js';

export type PageAttempt =
  | { kind: 'ok'; scrapeId: string; outcome: ScrapeOutcome; waitedMs: number }
  | { kind: 'error'; scrapeId: string; message: string; code?: string }
  | { kind: 'no-credit' }
  /** The job ended (cancelled, shut down) while the page was in flight: record nothing. */
  | { kind: 'aborted' };

/**
 * Scrapes one URL for a job. The credit is held during the scrape and given back
 * before returning: the caller charges synchronously when it records the page.
 */
export async function attemptPage(jobsRuntime: JobsRuntime, job: Job, url: string, signal: AbortSignal): Promise<PageAttempt> {
  if (!(await passStallGate(job, signal))) return { kind: 'aborted' };
  const credits = scrapeCredits(1);
  if (!jobsRuntime.credits.hold(job.team.id, credits)) return { kind: 'no-credit' };
  const scrapeId = newJobId(jobsRuntime.ctx.now());
  try {
    const lease = await jobsRuntime.limiter.acquire(job.team, signal);
    try {
      const outcome = await jobsRuntime.ctx.scrapeEngine.scrape(url, withUrl(job.scrapeOptions, url), { scrapeId, team: job.team, signal });
      if (job.status !== 'scraping') return { kind: 'aborted' };
      return { kind: 'ok', scrapeId, outcome, waitedMs: lease.waitedMs };
    } finally {
      lease.release();
    }
  } catch (err) {
    if (job.status !== 'scraping' || signal.aborted) return { kind: 'aborted' };
    const message = err instanceof Error ? err.message : String(err);
    const code = err instanceof HttpError ? err.code : (err as { code?: unknown }).code;
    return { kind: 'error', scrapeId, message, code: typeof code === 'string' ? code : undefined };
  } finally {
    jobsRuntime.credits.release(job.team.id, credits);
  }
}

/** Keeps a scraped page in the job, charges it, and sends the `*.page` event. */
export function recordDocument(jobsRuntime: JobsRuntime, job: Job, attempt: Extract<PageAttempt, { kind: 'ok' }>): void {
  const { ctx } = jobsRuntime;
  const credits = scrapeCredits(1);
  const metadata: Record<string, unknown> = { ...attempt.outcome.document.metadata, scrapeId: attempt.scrapeId, creditsUsed: credits };
  if (attempt.waitedMs > 0) {
    metadata.concurrencyLimited = true;
    metadata.concurrencyQueueDurationMs = attempt.waitedMs;
  }
  const doc = { ...attempt.outcome.document, metadata } as typeof attempt.outcome.document;
  ctx.ledger.charge({ teamId: job.team.id, apiKey: job.apiKey, credits, reason: job.kind, jobId: job.id });
  job.creditsUsed += credits;
  job.documents.push(new KeptDocument(doc));
  keepScrapeRecord(jobsRuntime, job, attempt.scrapeId, doc);
  if (doc.metadata.statusCode < 400 && isPublicFetch(job)) ctx.pageIndex?.index(doc);
  job.changes.notify();
  emitJobEvent(ctx, job, 'page', { success: true, data: [doc] });
}

/**
 * A recorded page, measured when a status page is cut (paging.ts), not as it is recorded: most
 * pages of a large job are read a few at a time, or go out by webhook, and serializing every
 * page on the scrape path cost more than keeping it. Documents are not changed once recorded.
 */
class KeptDocument implements JobDocument {
  private size = -1;

  constructor(readonly doc: PageDocument) {}

  get bytes(): number {
    if (this.size < 0) this.size = Buffer.byteLength(JSON.stringify(this.doc));
    return this.size;
  }
}

/**
 * Each page is kept like a single scrape (same options shape as POST /v2/scrape), so
 * interact can open its browser session and support can read it. Zero data retention
 * keeps only a content-free marker, as the scrape route does.
 */
function keepScrapeRecord(jobsRuntime: JobsRuntime, job: Job, scrapeId: string, doc: PageDocument): void {
  const now = jobsRuntime.ctx.now();
  const zdr = job.zeroDataRetention;
  const url = zdr ? '' : doc.metadata.sourceURL;
  // One literal, not a spread of the common members with more added: on Node 20 that costs V8 a
  // new hidden class per page (about 3 µs).
  jobsRuntime.ctx.scrapes.put({
    id: scrapeId,
    teamId: job.team.id,
    apiKey: job.apiKey,
    createdAt: now,
    expiresAt: now + jobsRuntime.ctx.config.jobTtlMs,
    url,
    options: zdr ? {} : withUrl(job.scrapeOptions, url),
    document: zdr ? null : doc,
    zeroDataRetention: zdr,
  });
}

/** A job's copy of each options object with `url` already a member (see withUrl). */
const withUrlTemplates = new WeakMap<Record<string, unknown>, Record<string, unknown>>();

/**
 * `{ ...options, url }`, made by spreading a copy that already has `url`: replacing a member keeps
 * V8's hidden class, where adding one to a spread makes a new one per call on Node 20. A job's
 * scrape options do not change once it starts.
 */
function withUrl(options: Record<string, unknown>, url: string): Record<string, unknown> {
  let template = withUrlTemplates.get(options);
  if (!template) withUrlTemplates.set(options, (template = { ...options, url: '' }));
  return { ...template, url };
}

/** Only pages fetched without ZDR, request headers or a profile may be found by anyone's search. */
function isPublicFetch(job: Job): boolean {
  const headers = job.scrapeOptions.headers as Record<string, string> | undefined;
  return !job.zeroDataRetention && Object.keys(headers ?? {}).length === 0 && job.scrapeOptions.profile === undefined;
}

/** Lists a page failure under the job's errors and sends a failed `*.page` event. */
export function recordFailure(jobsRuntime: JobsRuntime, job: Job, url: string, failure: { message: string; code?: string; scrapeId?: string }): void {
  job.errors.push({
    id: failure.scrapeId ?? newJobId(jobsRuntime.ctx.now()),
    timestamp: new Date(jobsRuntime.ctx.now()).toISOString(),
    url,
    ...(failure.code !== undefined ? { code: failure.code } : {}),
    error: failure.message,
  });
  job.changes.notify();
  emitJobEvent(jobsRuntime.ctx, job, 'page', { success: false, error: failure.message, data: [{ metadata: { sourceURL: url } }] });
}

export const NO_CREDIT_MESSAGE = 'Insufficient credits: the team has no credits left for this page';

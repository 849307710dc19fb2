// The one new job a crawl or batch stage starts for what its lost job did not store.
import { DEFAULT_CRAWL_LIMIT, MAX_PATTERN_LENGTH, MAX_PATTERNS, sameUrl } from 'webdata-contract/rules';
import type { CrawlRequest } from 'webdata-contract';
import type { LostJobInventory } from '../../activities/lost-job.js';
import { lists, starts } from '../activities.js';
import { hostOf, type PipelineRuntime } from '../runtime.js';
import { fitJob } from './fit-job.js';
import type { JobPlan } from './job.js';
import type { RecoveryStep } from './lost-job.js';

/** `text` matched literally inside a pattern. */
export const escapePattern = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A URL's path ('/' when it has none), without query or fragment. */
export const pathOf = (url: string) => /^[a-z]+:\/\/[^/?#]+([^?#]*)/i.exec(url)?.[1] || '/';

/**
 * Exact patterns for the paths (alternations packed up to the contract's pattern length), at
 * most `room` of them; `left`: paths that did not fit (the collector drops them when they come).
 */
export function exactPatterns(urls: string[], room: number, fullUrl = false): { patterns: string[]; left: number } {
  const patterns: string[] = [];
  let group: string[] = [];
  let left = 0;
  const close = () => {
    if (group.length > 0) patterns.push(`^(${group.join('|')})$`);
    group = [];
  };
  for (const path of new Set(urls.map((u) => escapePattern(fullUrl ? u : pathOf(u))))) {
    if (path.length + 4 > MAX_PATTERN_LENGTH) {
      left += 1;
      continue;
    }
    if (group.length > 0 && `^(${[...group, path].join('|')})$`.length > MAX_PATTERN_LENGTH) close();
    // An open group becomes a pattern: one is only opened while there is room for it.
    if (patterns.length >= room) {
      left += 1;
      continue;
    }
    group.push(path);
  }
  close();
  return { patterns, left };
}

/**
 * The crawl again with the stored URLs left out (exclude patterns), its limit what the lost job
 * did not store. The start page stays admitted (an excluded start URL ends a crawl at once): it
 * is scraped again and not stored twice.
 */
export async function recoveryCrawl(pipeline: PipelineRuntime, body: CrawlRequest, lost: LostJobInventory, perPage: number): Promise<RecoveryStep> {
  const limit = body.limit ?? DEFAULT_CRAWL_LIMIT;
  const missing = limit - lost.documents;
  if (missing <= 0) return { kind: 'nothing', why: `it had stored ${lost.documents} of the ${limit} pages asked for` };
  const others = lost.urls.filter((u) => !sameUrl(u, body.url));
  const excludes = body.excludePaths ?? [];
  const { patterns, left } = exactPatterns(others, MAX_PATTERNS - excludes.length, body.regexOnFullURL === true);
  // Stored pages the crawl may meet again take places in its limit (they are dropped when collected).
  const again = (others.length < lost.urls.length ? 1 : 0) + left + (lost.truncated ? lost.documents - lost.urls.length : 0);
  const fit = await fitJob(pipeline, 'crawl: recovery limit', missing + again, perPage);
  if (fit.kind === 'skip') return { kind: 'impossible', reason: fit.reason };
  const recovery: CrawlRequest = { ...body, limit: fit.units, excludePaths: [...excludes, ...patterns] };
  return recoveryJob('crawl', fit, perPage, lost, (idempotencyKey) => starts().startCrawl.executeWithOptions(
    { summary: `crawl ${hostOf(body.url)} again without the ${lost.documents} pages lost job ${lost.jobId} stored` },
    [{ body: recovery, idempotencyKey }],
  ));
}

/** A batch of the stage's URLs the lost job did not store, at most what it had left to do. */
export async function recoveryBatch(
  pipeline: PipelineRuntime,
  lost: LostJobInventory,
  urls: number,
  perPage: number,
  options: Record<string, unknown>,
): Promise<RecoveryStep> {
  const { state } = pipeline;
  const diff = await lists.diffUrls.executeWithOptions(
    { summary: `URLs lost batch ${lost.jobId} did not store` },
    [{ runId: state.runId, fromList: state.lists.missing ?? 'missing', coveredByJobs: [lost.jobId], toList: 'missing.recovery' }],
  );
  const wanted = Math.min(diff.count, urls - lost.documents);
  if (wanted <= 0) return { kind: 'nothing', why: `it had stored ${lost.documents} of its ${urls} URLs` };
  const fit = await fitJob(pipeline, 'batch: recovery URLs', wanted, perPage);
  if (fit.kind === 'skip') return { kind: 'impossible', reason: fit.reason };
  return recoveryJob('batch', fit, perPage, lost, (idempotencyKey) => starts().startBatchScrape.executeWithOptions(
    { summary: `batch scrape ${fit.units} URLs lost batch ${lost.jobId} did not store` },
    [{ urlsFrom: { runId: state.runId, list: 'missing.recovery', limit: fit.units }, options, idempotencyKey }],
  ));
}

/** The recovery job's plan: its own idempotency key, the lost job's stored pages left out when collected. */
function recoveryJob(
  kind: 'crawl' | 'batch',
  fit: { allowance: number; tight: boolean },
  perPage: number,
  lost: LostJobInventory,
  start: JobPlan['start'],
): RecoveryStep {
  return {
    kind: 'start',
    plan: { stage: kind, kind, keyName: `${kind}#recovery`, allowance: fit.allowance, tight: fit.tight, perPage, skipStoredOf: [lost.jobId], start },
  };
}

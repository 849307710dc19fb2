// crawl: a filtered crawl (include/exclude/limit from the selection), clamped to the budget.
import { starts } from '../activities.js';
import { creditsLeft, awaitCredits } from '../budget.js';
import { creditsPerPage, fitUnits } from '../credit-guard.js';
import { hostOf, type PipelineRuntime } from '../runtime.js';
import { runJob } from './job.js';
import type { StageOutcome } from './types.js';

const DEFAULT_CRAWL_LIMIT = 10_000;

export async function runCrawl(rt: PipelineRuntime): Promise<StageOutcome> {
  const { config } = rt.state;
  const crawl = { ...(config.crawl ?? {}) };
  const select = config.select;
  if (rt.state.lists.selected) {
    if (crawl.includePaths === undefined && select?.include?.length) {
      // The service checks the start URL against includePaths too; a start page outside the
      // selection would end the crawl at once, so admit exactly that page as the way in.
      crawl.includePaths = admitStartPage(config.url, select.include);
    }
    crawl.excludePaths ??= select?.exclude;
    crawl.limit ??= rt.state.selectedCount;
  }
  const wanted = crawl.limit ?? DEFAULT_CRAWL_LIMIT;
  const perPage = creditsPerPage(crawl.scrapeOptions);
  const strategy = config.budget?.strategy ?? 'clamp';
  let allowance = Number.POSITIVE_INFINITY;

  if (!rt.state.activeJob && (rt.state.credits.budget !== null || config.budget?.monthlyCap !== undefined)) {
    if (!(await awaitCredits(rt, perPage))) return { kind: 'skipped', reason: `budget: ${perPage} credits needed for one page` };
    const left = await creditsLeft(rt);
    allowance = left;
    if (strategy === 'clamp') {
      const fit = fitUnits(wanted, perPage, left);
      if (fit.kind === 'none') return { kind: 'skipped', reason: 'budget: nothing left' };
      if (fit.kind === 'clamped') {
        crawl.limit = fit.units;
        rt.state.credits.events.push(`crawl: limit clamped from ${fit.from} to ${fit.units} (budget)`);
      }
    }
  }

  const body = { url: config.url, ...crawl, webhook: webhookFor(rt) };
  const outcome = await runJob(rt, {
    stage: 'crawl',
    kind: 'crawl',
    allowance,
    tight: strategy === 'stop' && Number.isFinite(allowance),
    start: (idempotencyKey) =>
      starts.startCrawl.executeWithOptions(
        { summary: `crawl ${hostOf(config.url)} limit ${crawl.limit ?? DEFAULT_CRAWL_LIMIT}` },
        [{ body, idempotencyKey }],
      ),
  });
  return outcome;
}

/** Include patterns plus an exact pattern for the start URL's path when none admits it. */
export function admitStartPage(url: string, include: string[]): string[] {
  const path = /^[a-z]+:\/\/[^/?#]+([^?#]*)/i.exec(url)?.[1] || '/';
  if (include.some((p) => new RegExp(p).test(path))) return include;
  return [...include, `^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`];
}

export function webhookFor(rt: PipelineRuntime): { url: string; metadata: Record<string, string>; events: Array<'started' | 'completed' | 'failed'> } | undefined {
  const url = rt.state.config.webhookUrl;
  if (!url) return undefined;
  // Only job-level events: page events would grow history with pages (principle 4).
  return { url, metadata: { workflowId: rt.workflowId(), runId: rt.state.runId }, events: ['started', 'completed', 'failed'] };
}

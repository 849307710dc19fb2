// The target site answered 429 Too Many Requests to the job's pages: fewer pages at once,
// and a delay between them (crawl), makes the site accept them. Tested by fetching the
// failed pages again one at a time with that delay.
import { setTimeout as sleep } from 'node:timers/promises';
import { describeJob, note, pathOf, plural, provisional } from '../facts.js';
import type { Case, Cause, Finding } from '../types.js';

const DELAY_SEC = 1;
const PROBES = 3;

const limited = (c: Case) => {
  const j = c.job!;
  return [...new Set([
    ...j.errors.filter((e) => e.code === 'HTTP_429' || /\b429\b/.test(e.error)).map((e) => e.url),
    ...j.pages.filter((p) => p.statusCode === 429).map((p) => p.url),
  ])];
};

export const siteRateLimitCause: Cause = {
  id: 'site_rate_limited',
  hint: /\b429\b|rate.?limit|too many requests|throttl/i,
  applies(c) {
    return !!c.job && (c.job.kind === 'crawl' || c.job.kind === 'batch_scrape' || c.job.kind === 'scrape') && limited(c).length > 0;
  },
  async diagnose(c: Case): Promise<Finding> {
    const job = c.job!;
    const urls = limited(c);
    const fix: Record<string, unknown> = job.kind === 'crawl' ? { maxConcurrency: 1, delay: DELAY_SEC } : job.kind === 'batch_scrape' ? { maxConcurrency: 1 } : {};
    const gap = job.kind === 'crawl' ? DELAY_SEC * 1000 : 0;
    const diagnosis = `The site itself answered 429 Too Many Requests to ${plural(urls.length, 'page')} of the ${describeJob(job)} (e.g. ${pathOf(urls[0])}): it limits how fast one client may fetch.`;
    const advice = job.kind === 'crawl'
      ? `Crawl one page at a time with a pause: maxConcurrency 1 and delay ${DELAY_SEC} (seconds).`
      : job.kind === 'batch_scrape' ? 'Scrape one page at a time: maxConcurrency 1.' : 'Wait before scraping it again and space out your scrapes of this site.';
    provisional(c, { cause: this.id, confidence: 'medium', answer: `${diagnosis} ${advice}`, fixParameters: Object.keys(fix).length ? fix : null, validation: null });

    const sample = urls.slice(0, PROBES);
    note(c, `fetched ${sample.length} rate-limited page(s) again one at a time${gap ? `, ${DELAY_SEC} s apart` : ''}`);
    const statuses: number[] = [];
    for (const [i, url] of sample.entries()) {
      if (i > 0 || gap > 0) await sleep(gap || 250, undefined, { signal: c.timeBudget.signal });
      const res = await c.fetcher.fetch(url, { signal: c.timeBudget.within(15_000), maxBytes: 5 * 1024 * 1024 }).catch(() => undefined);
      statuses.push(res?.status ?? 0);
    }
    const ok = statuses.every((s) => s > 0 && s < 400);
    return {
      cause: this.id,
      confidence: ok ? 'high' : 'medium',
      answer: `${diagnosis} ${advice}`,
      fixParameters: Object.keys(fix).length ? fix : null,
      validation: {
        tested: true,
        result: ok ? 'success' : 'failure',
        evidence: `fetched ${sample.map(pathOf).join(', ')} one at a time${gap ? ` ${DELAY_SEC} s apart` : ''}: HTTP ${statuses.join(', ')}`,
      },
      feedback: null,
    };
  },
};

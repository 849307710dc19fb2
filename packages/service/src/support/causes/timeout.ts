// 408 SCRAPE_TIMEOUT: the page answered slower than `timeout`. The page is measured with a
// generous timeout first, then the proposed timeout (about twice the measured time, rounded
// up to a second) is tested with a real scrape of the same page.
import { describeJob, note, pathOf, provisional, scrapeOptionFix, scrapeOptionsOf, secs } from '../facts.js';
import { probeScrape } from '../probes/scrape-probe.js';
import type { Case, Cause, Finding } from '../types.js';

const DEFAULT_TIMEOUT_MS = 60_000;

const timedOut = (code?: string) => code === 'SCRAPE_TIMEOUT';

export const timeoutCause: Cause = {
  id: 'scrape_timeout',
  hint: /time[ -]?d? ?out|\b408\b|slow|too long/i,
  applies(c) {
    const j = c.job;
    return !!j && (timedOut(j.errorCode) || j.errors.some((e) => timedOut(e.code)));
  },
  async diagnose(c: Case): Promise<Finding> {
    const job = c.job!;
    const url = job.errors.find((e) => timedOut(e.code))?.url ?? job.url!;
    const options = scrapeOptionsOf(job);
    const current = typeof options.timeout === 'number' ? options.timeout : DEFAULT_TIMEOUT_MS;
    const failedCount = job.errors.filter((e) => timedOut(e.code)).length;
    const what = job.kind === 'scrape' ? `The scrape of ${url}` : `${failedCount} page${failedCount === 1 ? '' : 's'} of the ${describeJob(job)} (e.g. ${pathOf(url)})`;
    const diagnosis = `${what} timed out: the page did not answer within the timeout of ${current} ms.`;
    provisional(c, {
      cause: this.id, confidence: 'low', fixParameters: null,
      answer: `${diagnosis} The support budget ran out while measuring how long the page takes, so no timeout value could be tested; try a larger timeout.`,
      validation: { tested: false, result: 'skipped', evidence: 'the page was still being measured when the budget ran out' },
    });

    // Measure with room to spare (never more than the budget allows).
    const generous = Math.min(Math.max(current * 4, 30_000), 55_000, Math.max(1000, c.timeBudget.remaining() - 1500));
    note(c, `scraped ${url} with timeout ${generous} ms to measure it`);
    const measured = await probeScrape(c, url, { ...options, timeout: generous }, generous + 1000);
    if (!measured.ok) {
      const still = measured.status === 408;
      return {
        cause: this.id,
        confidence: still ? 'medium' : 'low',
        answer: `${diagnosis} ${still ? `Even with a timeout of ${generous} ms the page did not answer, so it is down or far too slow; raising the timeout will not help until the site responds.` : `A new scrape of it failed differently (${measured.error}), so the timeout is not the only problem.`}`,
        fixParameters: null,
        validation: { tested: true, result: 'failure', evidence: `scrape with timeout ${generous} ms: ${measured.status ?? ''} ${measured.error ?? 'failed'} after ${measured.ms} ms` },
        feedback: null,
      };
    }
    const proposed = Math.max(current + 1000, Math.ceil(Math.max(measured.ms * 2, measured.ms + 2000) / 1000) * 1000);
    const fix = scrapeOptionFix(job, { timeout: proposed });
    provisional(c, {
      cause: this.id, confidence: 'medium', fixParameters: fix,
      answer: `${diagnosis} It answered in ${secs(measured.ms)} when given more time, so set timeout to ${proposed} ms.`,
      validation: { tested: true, result: 'skipped', evidence: `measured: the page answered in ${measured.ms} ms; the proposed timeout was not tested yet` },
    });
    note(c, `scraped ${url} with the proposed timeout ${proposed} ms`);
    const check = await probeScrape(c, url, { ...options, timeout: proposed }, proposed + 1000);
    return {
      cause: this.id,
      confidence: check.ok ? 'high' : 'medium',
      answer: `${diagnosis} The page needs about ${secs(measured.ms)}, so set timeout to ${proposed} ms (about twice that)${job.kind === 'crawl' ? ' in scrapeOptions' : ''} and rerun.`,
      fixParameters: fix,
      validation: check.ok
        ? { tested: true, result: 'success', evidence: `a scrape of ${url} with timeout ${proposed} ms succeeded in ${check.ms} ms (HTTP ${check.statusCode})` }
        : { tested: true, result: 'failure', evidence: `a scrape of ${url} with timeout ${proposed} ms failed: ${check.error ?? check.status}` },
      feedback: null,
    };
  },
};

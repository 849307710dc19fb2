// Content built by JavaScript: the scrape read the HTML before the page's scripts filled it
// (no waitFor, or one too short). The raw HTML is checked for script-built pages, then
// larger waitFor values (which render in the browser) are tried with real scrapes until the
// page's text appears.
import { describeJob, note, pathOf, provisional, scrapeOptionFix, scrapeOptionsOf } from '../facts.js';
import { probeScrape } from '../probes/scrape-probe.js';
import type { Case, Cause, Finding } from '../types.js';

/** Fewer characters of text than this counts as an empty page. */
const THIN = 200;

function thinPages(c: Case) {
  return (c.job?.pages ?? []).filter((p) => p.statusCode < 400 && p.contentChars < THIN);
}

function jsSignals(html: string): string[] {
  const signals: string[] = [];
  const scripts = (html.match(/<script\b/gi) ?? []).length;
  if (scripts > 0) signals.push(`${scripts} script${scripts === 1 ? '' : 's'}`);
  if (/<div[^>]*\bid=["']?(?:root|app|__next|__nuxt|main)["']?[^>]*>\s*<\/div>/i.test(html)) signals.push('an empty root element');
  if (/<noscript/i.test(html)) signals.push('a <noscript> notice');
  if (/name=["']?webdata:render["']?[^>]*javascript/i.test(html)) signals.push('a render-with-JavaScript meta tag');
  const text = html.replace(/<script[\s\S]*?<\/script>|<style[\s\S]*?<\/style>|<noscript[\s\S]*?<\/noscript>/gi, ' ').replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim();
  if (text.length < THIN) signals.push(`only ${text.length} characters of static text`);
  return scripts > 0 ? signals : [];
}

export const jsContentCause: Cause = {
  id: 'javascript_content',
  hint: /javascript|\bjs\b|empty|blank|no content|missing content|waitfor|wait for|dynamic|render|loading/i,
  applies(c) {
    return thinPages(c).length > 0;
  },
  async diagnose(c: Case): Promise<Finding | undefined> {
    const job = c.job!;
    const page = thinPages(c)[0];
    note(c, `fetched the raw HTML of ${page.url}`);
    const raw = await c.fetcher.fetch(page.url, { signal: c.timeBudget.within(10_000), maxBytes: 5 * 1024 * 1024, accept: 'text/html,*/*' }).catch(() => undefined);
    const signals = raw && /html/i.test(raw.contentType) ? jsSignals(raw.body.toString('utf8')) : [];
    if (signals.length === 0) return undefined;

    const options = scrapeOptionsOf(job);
    const waited = typeof options.waitFor === 'number' ? options.waitFor : 0;
    const otherWaits = (Array.isArray(options.actions) ? options.actions as Array<{ type?: string; milliseconds?: number }> : [])
      .reduce((sum, a) => sum + (a.type === 'wait' ? a.milliseconds ?? 0 : 0), 0);
    const candidates = [...new Set([Math.max(2 * waited, 2000), Math.max(4 * waited, 5000), 10_000])]
      .filter((v) => v > waited && v + otherWaits <= 60_000);
    const why = waited > 0 ? `waitFor ${waited} ms was too short for its scripts` : 'the scrape read the HTML before its scripts ran';
    const diagnosis = `The page ${pathOf(page.url)} of the ${describeJob(job)} builds its content with JavaScript (${signals.join(', ')}), and ${why}, so only ${page.contentChars} characters came back.`;
    provisional(c, { cause: this.id, confidence: 'medium', answer: `${diagnosis} Set waitFor to ${candidates[0]} (ms) so the page is rendered in a browser first.`, fixParameters: candidates.length ? scrapeOptionFix(job, { waitFor: candidates[0] }) : null, validation: null });

    const tried: string[] = [];
    for (const waitFor of candidates) {
      if (c.timeBudget.remaining() < waitFor + 3000) break;
      note(c, `scraped ${page.url} with waitFor ${waitFor} ms`);
      const probe = await probeScrape(c, page.url, { ...options, waitFor }, waitFor + 30_000);
      if (!probe.ok && (probe.status === 503 || probe.code === 'BROWSER_NOT_CONFIGURED')) {
        return {
          cause: this.id, confidence: 'medium', fixParameters: null, feedback: null,
          answer: `${diagnosis} Rendering it needs the browser engine, which this service has not configured (no Chromium), so no request change can help here.`,
          validation: { tested: true, result: 'failure', evidence: `scrape with waitFor ${waitFor} ms: ${probe.error}` },
        };
      }
      tried.push(`waitFor ${waitFor}: ${probe.ok ? `${probe.contentChars} characters` : probe.error ?? `HTTP ${probe.status}`}`);
      if (probe.ok && probe.contentChars >= Math.max(THIN, page.contentChars * 2)) {
        return {
          cause: this.id,
          confidence: 'high',
          answer: `${diagnosis} Set waitFor to ${waitFor} (ms)${job.kind === 'crawl' ? ' in scrapeOptions' : ''}: the page is then rendered in a browser and given time to finish.`,
          fixParameters: scrapeOptionFix(job, { waitFor }),
          validation: { tested: true, result: 'success', evidence: `a scrape of ${page.url} with waitFor ${waitFor} ms returned ${probe.contentChars} characters (was ${page.contentChars}) in ${probe.ms} ms` },
          feedback: null,
        };
      }
    }
    return {
      cause: this.id,
      confidence: 'low',
      answer: `${diagnosis} Waiting longer did not bring the content within the budget, so the page may need actions (a click or scroll) or a login before it shows anything.`,
      fixParameters: null,
      validation: { tested: tried.length > 0, result: tried.length > 0 ? 'failure' : 'skipped', evidence: tried.length ? tried.join('; ') : 'no time left to test a waitFor value' },
      feedback: { blockedBy: 'the page stayed empty with every waitFor tried', attempted: [...c.trail] },
    };
  },
};

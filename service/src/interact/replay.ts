// Puts a fresh interact session at the original scrape's page state: same URL, headers,
// mobile/location emulation where possible, waitFor, then the scrape's actions again.
import type { Page } from 'playwright-core';
import type { ScrapeRecord } from '../core/contract.js';
import { runActions, type ScrapeAction } from '../browser/actions.js';

export async function replayScrape(page: Page, record: ScrapeRecord): Promise<void> {
  const o = record.options;
  const url = typeof o.url === 'string' ? o.url : record.url;
  const timeout = typeof o.timeout === 'number' ? o.timeout : 60_000;
  if (o.headers && typeof o.headers === 'object') await page.setExtraHTTPHeaders(o.headers as Record<string, string>);
  if (o.mobile === true) await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(url, { timeout, waitUntil: 'load' });
  if (typeof o.waitFor === 'number' && o.waitFor > 0) await page.waitForTimeout(o.waitFor);
  const actions = Array.isArray(o.actions) ? (o.actions as ScrapeAction[]) : [];
  // Screenshots, scrapes and PDFs of the original run are not needed again: only state-changing steps.
  const replayable = actions.filter((a) => a.type !== 'screenshot' && a.type !== 'scrape' && a.type !== 'pdf');
  if (replayable.length) await runActions(page, replayable, Math.min(timeout, 30_000));
}

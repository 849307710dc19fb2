// Puts a fresh interact session at the original scrape's page state: same URL, headers,
// mobile/location emulation, waitFor, then the scrape's actions again.
import type { Page } from 'playwright-core';
import type { ScrapeRecord } from '../core/scrape.js';
import { runActions, type ScrapeAction } from '../browser/actions.js';
import { contextOptionsFor } from '../browser/emulation.js';

/**
 * The browser engine's mobile/location emulation, applied to the session's tab over CDP.
 * The CDP session stays attached on purpose: Chromium drops the overrides when it detaches.
 */
async function emulate(page: Page, o: Record<string, unknown>): Promise<void> {
  const location = o.location as { country?: string; languages?: string[] } | undefined;
  if (o.mobile !== true && !location) return;
  const e = contextOptionsFor({ mobile: o.mobile === true, location });
  const cdp = await page.context().newCDPSession(page);
  if (o.mobile === true && e.viewport) {
    await cdp.send('Emulation.setDeviceMetricsOverride', { width: e.viewport.width, height: e.viewport.height, deviceScaleFactor: 1, mobile: true });
    await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: true });
  }
  if (e.userAgent || e.locale) {
    await cdp.send('Emulation.setUserAgentOverride', {
      userAgent: e.userAgent ?? (await page.evaluate(() => navigator.userAgent)),
      ...(e.locale ? { acceptLanguage: e.locale } : {}),
    });
  }
  if (e.locale) await cdp.send('Emulation.setLocaleOverride', { locale: e.locale });
  if (e.timezoneId) await cdp.send('Emulation.setTimezoneOverride', { timezoneId: e.timezoneId });
}

export async function replayScrape(page: Page, record: ScrapeRecord): Promise<void> {
  const o = record.options;
  const url = typeof o.url === 'string' ? o.url : record.url;
  const timeout = typeof o.timeout === 'number' ? o.timeout : 60_000;
  if (o.headers && typeof o.headers === 'object') await page.setExtraHTTPHeaders(o.headers as Record<string, string>);
  await emulate(page, o);
  await page.goto(url, { timeout, waitUntil: 'load' });
  if (typeof o.waitFor === 'number' && o.waitFor > 0) await page.waitForTimeout(o.waitFor);
  const actions = Array.isArray(o.actions) ? (o.actions as ScrapeAction[]) : [];
  // Screenshots, scrapes and PDFs of the original run are not needed again: only state-changing steps.
  const replayable = actions.filter((a) => a.type !== 'screenshot' && a.type !== 'scrape' && a.type !== 'pdf');
  if (replayable.length) await runActions(page, replayable, Math.min(timeout, 30_000));
}

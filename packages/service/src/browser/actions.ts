// Scrape actions (contract notes "Scrape") run on a Playwright page. Used by the browser
// scrape engine and by interact, which replays the original scrape's actions.
// Screenshots and PDFs are returned as base64 data URLs (self-contained, no storage needed).
import { MAX_ACTIONS, MAX_TOTAL_WAIT_MS } from 'webdata-contract';
import type { Page } from 'playwright-core';
import { HttpError } from '../core/http-error.js';

export type ScrapeAction =
  | { type: 'wait'; milliseconds?: number; selector?: string }
  | { type: 'click'; selector: string; all?: boolean }
  | { type: 'write'; text: string }
  | { type: 'press'; key: string }
  | { type: 'scroll'; direction: 'up' | 'down'; selector?: string }
  | { type: 'screenshot'; fullPage?: boolean; quality?: number; viewport?: { width: number; height: number } }
  | { type: 'scrape' }
  | { type: 'executeJavascript'; script: string }
  | { type: 'pdf'; format?: string; landscape?: boolean; scale?: number };

/** The page document's `actions` member (webdata-contract ScrapeDocument['actions']). */
export type ActionResults = {
  screenshots: string[];
  scrapes: Array<{ url: string; html: string }>;
  javascriptReturns: Array<{ type: string; value: unknown }>;
  pdfs: string[];
};

export function emptyActionResults(): ActionResults {
  return { screenshots: [], scrapes: [], javascriptReturns: [], pdfs: [] };
}

export interface ScreenshotOptions {
  fullPage?: boolean;
  quality?: number;
  viewport?: { width: number; height: number };
}

/** A PNG data URL, or JPEG when a quality is given. A viewport is applied for the shot only. */
export async function takeScreenshot(page: Page, o: ScreenshotOptions = {}): Promise<string> {
  const previous = page.viewportSize();
  if (o.viewport) await page.setViewportSize(o.viewport);
  try {
    const jpeg = o.quality !== undefined;
    const buf = await page.screenshot({ fullPage: o.fullPage ?? false, type: jpeg ? 'jpeg' : 'png', quality: jpeg ? o.quality : undefined });
    return `data:image/${jpeg ? 'jpeg' : 'png'};base64,${buf.toString('base64')}`;
  } finally {
    if (o.viewport && previous) await page.setViewportSize(previous);
  }
}

/** The waiting an action list asks for, in ms (wait actions + waitFor), for the 60 s rule. */
export function totalWaitMs(actions: readonly ScrapeAction[], waitFor = 0): number {
  return actions.reduce((sum, a) => sum + (a.type === 'wait' ? a.milliseconds ?? 0 : 0), waitFor);
}

export function checkActionLimits(actions: readonly ScrapeAction[], waitFor = 0): void {
  if (actions.length > MAX_ACTIONS) throw new HttpError(400, `Bad Request: at most ${MAX_ACTIONS} actions are allowed`, { code: 'BAD_REQUEST' });
  const wait = totalWaitMs(actions, waitFor);
  if (wait > MAX_TOTAL_WAIT_MS) {
    throw new HttpError(400, `Bad Request: total waiting (wait actions + waitFor) must be at most ${MAX_TOTAL_WAIT_MS} ms, got ${wait}`, { code: 'BAD_REQUEST' });
  }
}

function jsType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/**
 * Runs the actions in order. `timeoutMs` bounds each step that waits on the page.
 * A failing action throws an HttpError naming the action (400: the page has no such element).
 */
export async function runActions(page: Page, actions: readonly ScrapeAction[], timeoutMs = 30_000): Promise<ActionResults> {
  const out = emptyActionResults();
  for (const [index, action] of actions.entries()) {
    try {
      await runAction(page, action, out, timeoutMs);
    } catch (err) {
      if (err instanceof HttpError) throw err;
      throw new HttpError(400, `Action ${index} (${action.type}) failed: ${(err as Error).message.split('\n')[0]}`, {
        code: 'SCRAPE_ACTION_ERROR',
      });
    }
  }
  return out;
}

async function runAction(page: Page, a: ScrapeAction, out: ActionResults, timeout: number): Promise<void> {
  switch (a.type) {
    case 'wait':
      if (a.selector) await page.waitForSelector(a.selector, { state: 'attached', timeout });
      else await page.waitForTimeout(a.milliseconds ?? 0);
      return;
    case 'click':
      if (a.all) {
        const handles = await page.locator(a.selector).all();
        for (const h of handles) await h.click({ timeout });
      } else {
        await page.locator(a.selector).first().click({ timeout });
      }
      return;
    case 'write':
      await page.keyboard.type(a.text);
      return;
    case 'press':
      await page.keyboard.press(a.key);
      return;
    case 'scroll': {
      const sign = a.direction === 'up' ? -1 : 1;
      if (a.selector) {
        await page.locator(a.selector).first().evaluate((el, s) => el.scrollBy(0, s * el.clientHeight), sign, { timeout });
      } else {
        await page.evaluate((s) => window.scrollBy(0, s * window.innerHeight), sign);
      }
      return;
    }
    case 'screenshot':
      out.screenshots.push(await takeScreenshot(page, a));
      return;
    case 'scrape':
      out.scrapes.push({ url: page.url(), html: await page.content() });
      return;
    case 'executeJavascript': {
      // An expression's value, or a function body's `return` value (promises awaited).
      const value = await page.evaluate((script) => {
        let fn: () => unknown;
        try {
          fn = new Function(`return (${script}\n)`) as () => unknown;
        } catch {
          fn = new Function(script) as () => unknown;
        }
        return fn();
      }, a.script);
      out.javascriptReturns.push({ type: jsType(value), value: value ?? null });
      return;
    }
    case 'pdf': {
      const buf = await page.pdf({ format: a.format ?? 'Letter', landscape: a.landscape ?? false, scale: a.scale ?? 1 });
      out.pdfs.push(`data:application/pdf;base64,${buf.toString('base64')}`);
      return;
    }
  }
}

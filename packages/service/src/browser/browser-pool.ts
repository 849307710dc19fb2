// One shared Chromium (launched by Playwright from the system binary) for the scrape engine,
// and a bounded number of browser contexts at a time. A browser that crashed or was closed
// (disconnected) is launched again on the next request.
// Playwright is loaded on the first launch: about 1 s of CPU at start for a service that may never
// render a page.
import type { Browser, BrowserContext, BrowserContextOptions } from 'playwright-core';
import { HttpError } from '../core/http-error.js';
import { CHROMIUM_ARGS } from './chromium.js';

export class BrowserPool {
  private browser?: Promise<Browser>;
  private active = 0;
  private readonly queue: Array<() => void> = [];
  private closed = false;

  constructor(private readonly chromiumPath: string, readonly maxContexts: number) {}

  private launch(): Promise<Browser> {
    const launching = import('playwright-core')
      .then(({ chromium }) => chromium.launch({ executablePath: this.chromiumPath, headless: true, args: [...CHROMIUM_ARGS], timeout: 60_000 }))
      .then((b) => {
        b.on('disconnected', () => {
          if (this.browser === launching) this.browser = undefined;
        });
        return b;
      });
    launching.catch(() => {
      if (this.browser === launching) this.browser = undefined;
    });
    this.browser = launching;
    return launching;
  }

  private async slot(signal?: AbortSignal): Promise<void> {
    if (this.active < this.maxContexts) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        const i = this.queue.indexOf(grant);
        if (i >= 0) this.queue.splice(i, 1);
        reject(new HttpError(408, 'Scrape cancelled while waiting for a browser', { code: 'SCRAPE_TIMEOUT' }));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(grant);
    });
  }

  private release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.active--;
  }

  /** Runs `fn` in a fresh context; the context is closed and the slot freed afterwards. */
  async withContext<T>(options: BrowserContextOptions, fn: (context: BrowserContext) => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.closed) throw new HttpError(503, 'browser engine is closed', { code: 'BROWSER_CLOSED' });
    await this.slot(signal);
    let context: BrowserContext | undefined;
    try {
      const current = this.browser ?? this.launch();
      let browser = await current;
      if (!browser.isConnected()) browser = await this.launch();
      context = await browser.newContext(options);
      return await fn(context);
    } finally {
      await context?.close().catch(() => undefined);
      this.release();
    }
  }

  /** Closes the shared browser as a crash would (tests): the next request relaunches it. */
  async dropBrowser(): Promise<void> {
    const b = await this.browser?.catch(() => undefined);
    await b?.close().catch(() => undefined);
  }

  get busy(): number {
    return this.active;
  }

  async close(): Promise<void> {
    this.closed = true;
    const b = this.browser;
    this.browser = undefined;
    if (b) await (await b.catch(() => undefined))?.close().catch(() => undefined);
  }
}

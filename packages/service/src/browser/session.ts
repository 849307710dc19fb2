// One browser session: its own Chromium process, an internal Playwright connection (for
// screenshots, live view, profiles and interact) and the bookkeeping that decides when it
// ends. Activity = CDP traffic through the proxy, live-view input or an execution.
import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromiumProcess, type ChromiumProcess } from './chromium-process.js';
import type { ProfileSpec, StorageState } from './profiles.js';

export type SessionKind = 'browser' | 'interact';
export type SessionStatus = 'active' | 'destroyed';

export interface SessionInit {
  id: string;
  teamId: string;
  apiKey: string;
  kind: SessionKind;
  /** The scrape job an interact session is bound to. */
  jobId?: string;
  ttlSec: number;
  activityTtlSec: number;
  streamWebView: boolean;
  profile?: ProfileSpec;
  now: number;
}

export interface SessionEnd {
  destroyedAt: number;
  sessionDurationMs: number;
  creditsBilled: number;
  reason: string;
}

const token = () => randomBytes(18).toString('base64url');

export class BrowserSession {
  readonly id: string;
  readonly teamId: string;
  readonly apiKey: string;
  readonly kind: SessionKind;
  readonly jobId?: string;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly activityTtlMs: number;
  readonly streamWebView: boolean;
  readonly profile?: ProfileSpec;
  /** Capabilities embedded in the URLs handed out: the CDP and live-view endpoints need no bearer token. */
  readonly tokens = { cdp: token(), view: token(), control: token() };
  status: SessionStatus = 'active';
  lastActivity: number;
  promptUsed = false;
  /** Running executions; a busy session is never idle. */
  busy = 0;
  end?: SessionEnd;
  private readonly teardown: Array<() => Promise<void> | void> = [];

  private constructor(
    init: SessionInit,
    readonly chromiumProcess: ChromiumProcess,
    readonly browser: Browser,
    readonly context: BrowserContext,
  ) {
    this.id = init.id;
    this.teamId = init.teamId;
    this.apiKey = init.apiKey;
    this.kind = init.kind;
    this.jobId = init.jobId;
    this.createdAt = init.now;
    this.expiresAt = init.now + init.ttlSec * 1000;
    this.activityTtlMs = init.activityTtlSec * 1000;
    this.streamWebView = init.streamWebView;
    this.profile = init.profile;
    this.lastActivity = init.now;
  }

  static async start(init: SessionInit, chromiumPath: string, storage?: StorageState): Promise<BrowserSession> {
    const proc = await launchChromiumProcess({ chromiumPath });
    try {
      const { chromium } = await import('playwright-core'); // loaded on first use, as in browser-pool.ts
      const browser = await chromium.connectOverCDP(proc.wsEndpoint, { timeout: 20_000 });
      const context = browser.contexts()[0] ?? (await browser.newContext());
      if (storage) await context.setStorageState(storage as Parameters<BrowserContext['setStorageState']>[0]);
      if (context.pages().length === 0) await context.newPage();
      return new BrowserSession(init, proc, browser, context);
    } catch (err) {
      await proc.kill();
      throw err;
    }
  }

  get active(): boolean {
    return this.status === 'active';
  }

  touch(now: number): void {
    if (now > this.lastActivity) this.lastActivity = now;
  }

  /** The page viewers and executions work on: the newest open tab (CDP clients may open more). */
  async currentPage(): Promise<Page> {
    const pages = this.context.pages().filter((p) => !p.isClosed());
    return pages[pages.length - 1] ?? (await this.context.newPage());
  }

  /** DevTools target id of a page (for clients that attach by target, e.g. Python). */
  async targetId(page: Page): Promise<string> {
    const cdp = await this.context.newCDPSession(page);
    try {
      const info = (await cdp.send('Target.getTargetInfo')) as { targetInfo: { targetId: string } };
      return info.targetInfo.targetId;
    } finally {
      await cdp.detach().catch(() => undefined);
    }
  }

  onTeardown(fn: () => Promise<void> | void): void {
    this.teardown.push(fn);
  }

  /** Releases everything; idempotent. Billing and profile saving are the manager's job, before this. */
  async shutdown(): Promise<void> {
    const fns = this.teardown.splice(0).reverse();
    for (const fn of fns) {
      try {
        await fn();
      } catch {
        // Best effort: one failing cleanup must not keep Chromium alive.
      }
    }
    await this.browser.close().catch(() => undefined);
    await this.chromiumProcess.kill();
  }
}

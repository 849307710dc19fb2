// The crawl loop: a queue, not a two-phase walk. Pages are scraped while links and
// sitemap URLs keep arriving; the loop ends as soon as nothing is queued, running or
// being discovered. Scraping and recording are the visitor's business (jobs/), so
// this file only decides which URLs to visit and in what order.
import { setTimeout as sleep } from 'node:timers/promises';
import { isLoopbackHostname, type ResourceFetcher } from './fetcher.js';
import { Frontier, type FrontierItem } from './frontier.js';
import type { PathFilter } from './path-filter.js';
import type { RobotsBook } from './robots.js';
import { readSitemaps, sitemapRoots } from './sitemap.js';
import { dedupeKey, parseHttpUrl } from './url-key.js';
import type { UrlScope } from './url-scope.js';

export type SitemapMode = 'skip' | 'include' | 'only';

export interface CrawlSettings {
  start: URL;
  limit: number;
  maxDiscoveryDepth?: number;
  sitemap: SitemapMode;
  ignoreQueryParameters: boolean;
  scope: UrlScope;
  filter: PathFilter;
  /** robots.txt of the visited origins; also the source of `Sitemap:` lines. */
  robots: RobotsBook;
  /** false with ignoreRobotsTxt: robots.txt is read for sitemaps only. */
  obeyRobots: boolean;
  /** Pages of this crawl in flight at once (delay forces 1). */
  concurrency: number;
  delayMs: number;
  allowNonLoopback: boolean;
  fetcher: ResourceFetcher;
}

export type VisitResult =
  | { status: 'ok'; links: string[]; finalUrl?: string }
  | { status: 'failed' }
  /** The crawl cannot go on (no credits left): nothing more is scraped. */
  | { status: 'stop' };

export interface PageVisitor {
  visit(url: string, signal: AbortSignal): Promise<VisitResult>;
  robotsBlocked(url: string): void;
  /** A URL in scope that this service may not fetch (a non-loopback destination). */
  notAllowed(url: string, reason: string): void;
}

/** Cap on sitemap URLs read per crawl, whatever the limit: sitemaps may list other sections too. */
const MAX_SITEMAP_URLS = 500_000;

/** A page whose links were read: kept (with maxDiscoveryDepth only) to re-offer them at a smaller depth. */
interface VisitedPage {
  links: string[];
  base: string;
}

export class Crawler {
  private readonly frontier: Frontier;
  /**
   * Depth of every admitted URL. Concurrent scrapes can reach a page by a longer path
   * first; when a shorter one turns up the depth is lowered (and, for a page already
   * visited, its links offered again), so depth is the shortest discovery distance
   * whatever the timing, as a breadth-first walk would give.
   */
  private readonly depths = new Map<string, { item?: FrontierItem; visited?: VisitedPage }>();
  private active = 0;
  private discovering = 0;
  private stopped = false;
  private finished = false;
  /** Scope around the start URL's redirect target: its children are in scope too. */
  private redirectScope?: UrlScope;
  private resolveDone!: () => void;
  private readonly done = new Promise<void>((resolve) => {
    this.resolveDone = resolve;
  });

  constructor(
    private readonly settings: CrawlSettings,
    private readonly visitor: PageVisitor,
    private readonly signal: AbortSignal,
  ) {
    this.frontier = new Frontier(settings.limit);
  }

  /** Pages queued or being scraped: they count in a running job's `total`. */
  get pending(): number {
    return this.frontier.waiting + this.active;
  }

  /** Resolves when the crawl has nothing left to do, or after an abort once in-flight pages settle. */
  run(): Promise<void> {
    if (this.signal.aborted) this.stop();
    else this.signal.addEventListener('abort', () => this.stop(), { once: true });
    this.track(this.offer(this.settings.start.href, 0));
    if (this.settings.sitemap !== 'skip') this.track(this.loadSitemaps());
    this.settle();
    return this.done;
  }

  private stop(): void {
    this.stopped = true;
    this.frontier.clear();
    this.settle();
  }

  /** Counts an async discovery step so the crawl is not declared done under it. */
  private track(step: Promise<void> | void): void {
    if (!step) return;
    this.discovering++;
    step
      .catch(() => undefined)
      .finally(() => {
        this.discovering--;
        this.settle();
      });
  }

  private offer(raw: string, depth: number, base?: string): Promise<void> | void {
    if (this.stopped) return;
    const s = this.settings;
    const url = parseHttpUrl(raw, base);
    if (!url || !this.inScope(url) || !s.filter.matches(url)) return;
    const key = dedupeKey(url, s.ignoreQueryParameters);
    if (!this.frontier.reserve(key)) {
      this.relax(key, depth);
      return;
    }
    if (!s.allowNonLoopback && !isLoopbackHostname(url.hostname)) {
      this.frontier.release();
      this.visitor.notAllowed(url.href, 'This service only fetches loopback destinations (allowNonLoopback is off)');
      return;
    }
    const item = { url, key, depth };
    if (s.maxDiscoveryDepth !== undefined) this.depths.set(key, { item });
    if (!s.obeyRobots) return this.enqueue(item);
    const known = s.robots.peek(url);
    if (known !== undefined) return this.admit(item, known);
    return s.robots.isAllowed(url).then((allowed) => this.admit(item, allowed));
  }

  private admit(item: FrontierItem, allowed: boolean): void {
    if (allowed) return this.enqueue(item);
    this.frontier.release();
    this.depths.delete(item.key);
    this.visitor.robotsBlocked(item.url.href);
  }

  private enqueue(item: FrontierItem): void {
    if (this.stopped) return;
    this.frontier.push(item);
    this.pump();
  }

  private pump(): void {
    while (!this.stopped && this.active < this.settings.concurrency) {
      const item = this.frontier.shift();
      if (!item) break;
      this.active++;
      this.visit(item)
        .catch(() => undefined)
        .finally(() => {
          this.active--;
          this.pump();
          this.settle();
        });
    }
  }

  private async visit(item: FrontierItem): Promise<void> {
    const s = this.settings;
    const result = await this.visitor.visit(item.url.href, this.signal);
    if (result.status === 'stop') {
      this.stop();
      return;
    }
    if (result.status === 'ok') {
      const finalUrl = result.finalUrl ? parseHttpUrl(result.finalUrl) : undefined;
      if (finalUrl) {
        const finalKey = dedupeKey(finalUrl, s.ignoreQueryParameters);
        // A redirect target is the same page: never queue it again. When the start URL
        // redirects (`/go/docs` → `/docs`), the crawl covers the target's children too.
        this.frontier.markSeen(finalKey);
        if (item.depth === 0 && item.url.href === s.start.href && finalKey !== item.key) this.redirectScope = s.scope.rebased(finalUrl);
      }
      const base = finalUrl?.href ?? item.url.href;
      if (s.maxDiscoveryDepth !== undefined && s.sitemap !== 'only' && !this.isExternal(item.url)) {
        this.depths.set(item.key, { item, visited: { links: result.links, base } });
      }
      if (this.followsLinksOf(item)) {
        for (const link of result.links) this.track(this.offer(link, item.depth + 1, base));
      }
    }
    if (s.delayMs > 0 && !this.stopped && (this.frontier.waiting > 0 || this.discovering > 0)) {
      await sleep(s.delayMs, undefined, { signal: this.signal }).catch(() => undefined);
    }
  }

  private inScope(url: URL): boolean {
    return this.settings.scope.allows(url) || (this.redirectScope?.allows(url) ?? false);
  }

  /** A known URL was reached at `depth`: lower its recorded depth if that is shorter. */
  private relax(key: string, depth: number): void {
    const entry = this.depths.get(key);
    if (!entry?.item || depth >= entry.item.depth) return;
    entry.item.depth = depth;
    // Queued or in flight: the new depth is used when its links are read. Visited: its
    // links are offered again one level down, which relaxes them in turn.
    if (entry.visited && this.followsLinksOf(entry.item)) {
      for (const link of entry.visited.links) this.track(this.offer(link, depth + 1, entry.visited.base));
    }
  }

  /** `only` reads no page links; a page at the maximum depth and external pages are leaves. */
  private followsLinksOf(item: FrontierItem): boolean {
    const s = this.settings;
    if (s.sitemap === 'only') return false;
    if (s.maxDiscoveryDepth !== undefined && item.depth >= s.maxDiscoveryDepth) return false;
    return !this.isExternal(item.url);
  }

  private isExternal(url: URL): boolean {
    return this.settings.scope.relation(url) === 'external' && (this.redirectScope?.relation(url) ?? 'external') === 'external';
  }

  private async loadSitemaps(): Promise<void> {
    const s = this.settings;
    const origin = s.start.origin;
    const fromRobots = await s.robots.sitemaps(origin);
    await readSitemaps(sitemapRoots(origin, fromRobots), {
      fetcher: s.fetcher,
      signal: this.signal,
      maxUrls: MAX_SITEMAP_URLS,
      shouldStop: () => this.stopped || this.frontier.isFull,
      onUrls: (urls) => {
        for (const u of urls) this.track(this.offer(u, 0));
      },
    });
  }

  private settle(): void {
    if (this.finished) return;
    if (this.active === 0 && this.discovering === 0 && (this.stopped || this.frontier.waiting === 0)) {
      this.finished = true;
      this.resolveDone();
    }
  }
}

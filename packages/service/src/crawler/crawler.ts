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
import { crawlKey, parseHttpUrl } from 'webdata-contract';
import { isFileUrl } from './file-urls.js';
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
  /** robots.txt-disallowed URLs already reported. */
  private readonly blocked = new Set<string>();
  /** Settles when the sitemaps are read: the start page's links wait for it (sitemap URLs take the limit first). */
  private sitemapsRead: Promise<void> = Promise.resolve();
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
    if (this.settings.sitemap !== 'skip') {
      this.sitemapsRead = this.loadSitemaps().catch(() => undefined);
      this.track(this.sitemapsRead);
    }
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

  /**
   * A URL met in a page's links or a sitemap: reported as robots-blocked when robots.txt
   * disallows it, whatever depth, limit, scope or include patterns would have said (only
   * exclude patterns hide it); only URLs on the host of the page (or sitemap) it was met on.
   */
  private noteBlocked(raw: string, base: string): Promise<void> | void {
    const s = this.settings;
    if (!s.obeyRobots) return;
    const url = parseHttpUrl(raw, base);
    if (!url || url.hostname !== new URL(base).hostname || s.filter.excluded(url) || isFileUrl(url)) return;
    const key = crawlKey(url, false);
    if (this.blocked.has(key)) return;
    const report = (allowed: boolean) => {
      if (allowed || this.blocked.has(key)) return;
      this.blocked.add(key);
      this.visitor.robotsBlocked(url.href);
    };
    const known = s.robots.peek(url);
    if (known !== undefined) return report(known);
    return s.robots.isAllowed(url).then(report);
  }

  private offer(raw: string, depth: number, base?: string): Promise<void> | void {
    if (this.stopped) return;
    const s = this.settings;
    const url = parseHttpUrl(raw, base);
    if (!url || isFileUrl(url) || !s.scope.allows(url) || !s.filter.matches(url)) return;
    const key = crawlKey(url, s.ignoreQueryParameters);
    if (this.frontier.hasSeen(key)) {
      this.relax(key, depth);
      return;
    }
    // robots.txt before the page budget: a disallowed URL never takes a slot.
    if (s.obeyRobots) {
      const known = s.robots.peek(url);
      if (known === undefined) return s.robots.isAllowed(url).then((allowed) => this.admit(url, key, depth, allowed, base));
      return this.admit(url, key, depth, known, base);
    }
    return this.admit(url, key, depth, true, base);
  }

  private admit(url: URL, key: string, depth: number, allowed: boolean, base?: string): void {
    const s = this.settings;
    if (this.stopped) return;
    if (!allowed) {
      // Reported here too for the start URL (met on no page).
      if (!this.blocked.has(key) && base === undefined) {
        this.blocked.add(key);
        this.visitor.robotsBlocked(url.href);
      }
      return;
    }
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
    this.enqueue(item);
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
      // A redirect target is the same page: never queue it again. The scope stays the
      // start URL's: a start URL that redirects elsewhere (`/start` → `/docs/`) does not
      // bring the target's children in.
      if (finalUrl) this.frontier.markSeen(crawlKey(finalUrl, s.ignoreQueryParameters));
      const base = finalUrl?.href ?? item.url.href;
      if (s.sitemap !== 'only') {
        // The start page's links wait for the sitemaps: sitemap URLs take the limit first.
        if (item.depth === 0 && item.url.href === s.start.href) await this.sitemapsRead;
        for (const link of result.links) this.track(this.noteBlocked(link, base));
      }
      if (s.maxDiscoveryDepth !== undefined && s.sitemap !== 'only') {
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

  /**
   * `only` reads no page links; a page at the maximum depth is a leaf. Pages of external
   * hosts (allowExternalLinks) have their links followed like any other page.
   */
  private followsLinksOf(item: FrontierItem): boolean {
    const s = this.settings;
    if (s.sitemap === 'only') return false;
    return s.maxDiscoveryDepth === undefined || item.depth < s.maxDiscoveryDepth;
  }

  private async loadSitemaps(): Promise<void> {
    const s = this.settings;
    const origin = s.start.origin;
    // robots.txt is read first, so the sitemap URLs are checked against it in file order.
    const fromRobots = await s.robots.sitemaps(origin);
    await readSitemaps(sitemapRoots(origin, fromRobots), {
      fetcher: s.fetcher,
      signal: this.signal,
      maxUrls: MAX_SITEMAP_URLS,
      shouldStop: () => this.stopped || this.frontier.isFull,
      onUrls: (urls) => {
        for (const u of urls) {
          this.track(this.noteBlocked(u, origin));
          this.track(this.offer(u, 0));
        }
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

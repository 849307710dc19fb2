// robots.txt per origin, fetched once per crawl. A missing or unreadable robots.txt
// allows everything (as major crawlers treat a 4xx); its Sitemap lines feed the sitemap reader.
import robotsParserModule from 'robots-parser';
import type { ResourceFetcher } from './fetcher.js';

interface Robot {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getSitemaps(): string[];
}

// A CommonJS module whose typings declare an ES default export: at runtime the default
// import is the function itself, under other loaders it sits on `.default`.
type RobotsParser = (url: string, contents: string) => Robot;
const robotsParser: RobotsParser =
  (robotsParserModule as unknown as { default?: RobotsParser }).default ?? (robotsParserModule as unknown as RobotsParser);

const MAX_ROBOTS_BYTES = 512 * 1024;

export class RobotsBook {
  private readonly byOrigin = new Map<string, Promise<Robot | null>>();
  private readonly settled = new Map<string, Robot | null>();

  constructor(
    private readonly fetcher: ResourceFetcher,
    /** The user agent whose rules apply (robotsUserAgent, or the service's own name). */
    private readonly userAgent: string,
    private readonly signal?: AbortSignal,
  ) {}

  /** The parsed robots.txt of an origin; null when there is none. Cached, never throws. */
  get(origin: string): Promise<Robot | null> {
    let entry = this.byOrigin.get(origin);
    if (!entry) {
      entry = this.load(origin);
      this.byOrigin.set(origin, entry);
    }
    return entry;
  }

  /** Cached answer without waiting; undefined while the origin's robots.txt is unknown. */
  peek(url: URL): boolean | undefined {
    const entry = this.settled.get(url.origin);
    if (entry === undefined) return undefined;
    return entry === null ? true : entry.isAllowed(url.href, this.userAgent) !== false;
  }

  async isAllowed(url: URL): Promise<boolean> {
    const robot = await this.get(url.origin);
    return robot === null || robot.isAllowed(url.href, this.userAgent) !== false;
  }

  async sitemaps(origin: string): Promise<string[]> {
    return (await this.get(origin))?.getSitemaps() ?? [];
  }

  private async load(origin: string): Promise<Robot | null> {
    const robotsUrl = `${origin}/robots.txt`;
    let robot: Robot | null = null;
    try {
      const res = await this.fetcher.fetch(robotsUrl, { signal: this.signal, maxBytes: MAX_ROBOTS_BYTES, accept: 'text/plain' });
      if (res.status >= 200 && res.status < 300) robot = robotsParser(robotsUrl, res.body.toString('utf8'));
    } catch {
      robot = null;
    }
    this.settled.set(origin, robot);
    return robot;
  }
}

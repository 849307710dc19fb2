// Read-only views of jobs of every kind, for support ask.

/** Kinds of work support ask can inspect (reference 4.3). */
export type InspectedJobKind = 'crawl' | 'batch_scrape' | 'scrape' | 'interact' | 'browser';

/** A read-only view of one job (or scrape, or browser session) for support diagnosis. */
export interface JobView {
  id: string;
  kind: InspectedJobKind;
  teamId: string;
  /** Start URL (crawl), first URL (batch), page URL (scrape); absent for browser sessions. */
  url?: string;
  status: 'scraping' | 'completed' | 'failed' | 'cancelled' | 'active' | 'destroyed';
  createdAt: number;
  completedAt?: number;
  /** The request's validated options (crawl: with `scrapeOptions`; scrape: the scrape request). */
  options: Record<string, unknown>;
  /** Job-level failure (kickoff failure, failed scrape, session end reason). */
  error?: string;
  errorCode?: string;
  /** Pages scraped successfully, with what support needs of each (no content). */
  pages: Array<{ url: string; statusCode: number; contentChars: number; engine?: string }>;
  /** Page failures, as GET /v2/crawl/{id}/errors lists them. */
  errors: Array<{ url: string; code?: string; error: string }>;
  robotsBlocked: string[];
  creditsUsed: number;
  /** Browser sessions: lifetimes and how the session ended. */
  session?: { ttlSec?: number; activityTtlSec?: number; destroyedAt?: number; endReason?: string; scrapeId?: string };
}

/** Read access to the jobs of every kind, for support ask; callers check `teamId` themselves. */
export interface JobInspector {
  /** undefined when unknown or expired. */
  get(id: string): JobView | undefined;
  /** The team's most recent jobs, newest first. */
  recent(teamId: string, n: number): JobView[];
}

// Scraping: page documents, the scrape engine, scrape records, the search index.
import type { DocumentMetadata, ScrapeDocument } from 'webdata-contract';
import type { TeamConfig } from './teams.js';

/**
 * A scraped page document as the service builds it: the contract's page document (reference
 * 2.8) with the metadata members the service always sets.
 */
export type PageDocument = ScrapeDocument & { metadata: PageMetadata };

export type PageMetadata = DocumentMetadata & { sourceURL: string; url: string; statusCode: number; scrapeId: string };

export interface ScrapeRequestContext {
  scrapeId: string;
  team: TeamConfig;
  signal?: AbortSignal;
}

export interface ScrapeOutcome {
  document: PageDocument;
  /** Every absolute http(s) link found on the page, for crawl discovery (independent of `formats`). */
  discoveredLinks: string[];
  /** Which engine produced the page. */
  engine: 'http' | 'browser';
  /** The exact options used, kept so interact can replay the page state. */
  options: Record<string, unknown>;
}

export interface ScrapeEngine {
  /**
   * Scrapes one URL with validated scrape options (the zod output of the scrape schema).
   * Throws HttpError (408 SCRAPE_TIMEOUT, 500 SCRAPE_ALL_ENGINES_FAILED, 400 for options
   * this engine cannot honour) on failure; non-2xx pages are documents with statusCode/error.
   */
  scrape(url: string, options: Record<string, unknown>, ctx: ScrapeRequestContext): Promise<ScrapeOutcome>;
  close(): Promise<void>;
}

/** A finished (or failed) single-page scrape, kept for GET /v2/scrape/{id} and interact replay. */
export interface ScrapeRecord {
  id: string;
  teamId: string;
  apiKey: string;
  url: string;
  /** Validated scrape options, replayed by interact (url, waitFor, actions...). */
  options: Record<string, unknown>;
  document: PageDocument | null;
  error?: string;
  /** The failure's HTTP status and code (e.g. 408 SCRAPE_TIMEOUT), for support diagnosis. */
  errorStatus?: number;
  errorCode?: string;
  createdAt: number;
  expiresAt: number;
  zeroDataRetention: boolean;
}

export interface ScrapeRecords {
  put(record: ScrapeRecord): void;
  /** undefined when unknown or expired. */
  get(id: string): ScrapeRecord | undefined;
  /** The team's unexpired records, newest first (support diagnosis). */
  byTeam?(teamId: string): ScrapeRecord[];
}

/**
 * The search index (POST /v2/search): every page the service scrapes can be added, so
 * search finds it. Callers must not index zero-data-retention documents, nor pages
 * fetched with request headers, cookies or a profile (they may be private to a team).
 */
export interface PageIndex {
  /** Adds or replaces the page (keyed by its canonical URL); never throws. */
  index(document: PageDocument): void;
}

// The search index: pages by canonical URL plus a MiniSearch full-text index over title,
// description, text and URL words. Implements the context's PageIndex, so scrape routes and
// jobs can add what they scrape; a re-scraped page replaces its old entry.
import MiniSearch from 'minisearch';
import type { PageDocument, PageIndex } from '../core/scrape.js';
import { pageFromDocument } from './extract.js';
import type { IndexedPage } from './page.js';
import { tokenize, urlText } from './text.js';

interface Doc {
  id: number;
  title: string;
  description: string;
  text: string;
  url: string;
  keywords: string;
}

/** Pages kept at most; the oldest entry goes first when full. */
export const MAX_INDEXED_PAGES = 50_000;

export class SearchIndex implements PageIndex {
  private readonly pages = new Map<number, IndexedPage>();
  private readonly ids = new Map<string, number>();
  private nextId = 1;
  private seq = 0;
  private readonly pending = new Set<Promise<unknown>>();
  private readonly deferred: Array<() => Promise<unknown>> = [];
  /**
   * Scraped documents not indexed yet. Indexing (text extraction, tokens, MiniSearch) costs about
   * as much CPU as scraping a page, in the event loop that scrapes: it is done when the index is
   * first read after them, so jobs that are never searched never pay for it.
   */
  private queued: Array<{ document: PageDocument; seq: number }> = [];
  private readonly miniSearch = new MiniSearch<Doc>({
    idField: 'id',
    fields: ['title', 'description', 'text', 'url', 'keywords'],
    tokenize,
    processTerm: (term) => term.toLowerCase(),
  });

  get mini(): MiniSearch<Doc> {
    this.flush();
    return this.miniSearch;
  }

  index(document: PageDocument): void {
    this.queued.push({ document, seq: ++this.seq });
    // Only the newest MAX_INDEXED_PAGES are kept: a longer backlog is indexed rather than held.
    if (this.queued.length >= MAX_INDEXED_PAGES) this.flush();
  }

  private flush(): void {
    if (this.queued.length === 0) return;
    const queued = this.queued;
    this.queued = [];
    for (const { document, seq } of queued) {
      try {
        const page = pageFromDocument(document, seq);
        if (page) this.put(page);
      } catch {
        // A page the extractor cannot read is simply not searchable.
      }
    }
  }

  put(fresh: IndexedPage): void {
    this.flush();
    const existing = this.ids.get(fresh.key);
    const page = existing === undefined ? fresh : keepKnownFacts(fresh, this.pages.get(existing) as IndexedPage);
    if (existing !== undefined) {
      this.miniSearch.discard(existing);
      this.pages.delete(existing);
    } else if (this.pages.size >= MAX_INDEXED_PAGES) {
      const oldest = this.pages.keys().next().value as number;
      this.ids.delete((this.pages.get(oldest) as IndexedPage).key);
      this.miniSearch.discard(oldest);
      this.pages.delete(oldest);
    }
    const id = this.nextId++;
    this.ids.set(page.key, id);
    this.pages.set(id, page);
    this.miniSearch.add({ id, title: page.title, description: page.description, text: page.text, url: urlText(page.url), keywords: page.keywords.join(' ') });
  }

  get size(): number {
    this.flush();
    return this.pages.size;
  }

  byId(id: number): IndexedPage | undefined {
    this.flush();
    return this.pages.get(id);
  }

  /** The page under this URL: its key, or any page whose URL is this one (trailing slash ignored). */
  find(url: string): { id: number; page: IndexedPage } | undefined {
    this.flush();
    const variants = [url, url.endsWith('/') ? url.slice(0, -1) : `${url}/`];
    for (const v of variants) {
      const id = this.ids.get(v);
      if (id !== undefined) return { id, page: this.pages.get(id) as IndexedPage };
    }
    return undefined;
  }

  /** Every page with its id, in insertion order. */
  entries(): Array<[number, IndexedPage]> {
    this.flush();
    return [...this.pages.entries()];
  }

  /**
   * Indexing that starts when a search first waits for the index: the demo site's pages cost
   * about 0.5 s of CPU to scrape, and most services (every test stack) never search.
   */
  defer(start: () => Promise<unknown>): void {
    this.deferred.push(start);
  }

  /** Whether background indexing is under way (deferred indexing not counted until it starts). */
  get indexing(): boolean {
    return this.pending.size > 0;
  }

  /** Tracks background indexing, so a search can wait for it. */
  track(work: Promise<unknown>): void {
    const tracked = work.catch(() => undefined).finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }

  /** Resolves when background indexing is done, or after `timeoutMs`; true when done. */
  async settled(timeoutMs: number): Promise<boolean> {
    for (const start of this.deferred.splice(0)) this.track(start());
    if (this.pending.size === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    const done = Promise.all([...this.pending]).then(() => true);
    try {
      return await Promise.race([done, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * A new copy of a page replaces the old one, but what the new copy cannot tell (a scrape
 * without HTML has no image sizes and no <time>) is kept from the old one.
 */
function keepKnownFacts(fresh: IndexedPage, old: IndexedPage): IndexedPage {
  const base = fresh.images.length > 0 ? fresh.images : old.images;
  const images = base.map((i) => (i.width !== undefined ? i : old.images.find((o) => o.url === i.url && o.width !== undefined) ?? i));
  return {
    ...fresh,
    images,
    publishedAt: fresh.publishedAt ?? old.publishedAt,
    date: fresh.date ?? old.date,
    leadImage: fresh.leadImage ?? old.leadImage,
    metaNames: [...new Set([...fresh.metaNames, ...old.metaNames])],
  };
}

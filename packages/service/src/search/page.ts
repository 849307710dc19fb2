// What the search index keeps of one page: text and the facts the filters need, never the
// page's HTML.

export interface IndexedImage {
  /** Absolute URL, or a data: URI. */
  url: string;
  alt: string;
  /** From the <img> width/height attributes, or decoded from a data: URI; absent when unknown. */
  width?: number;
  height?: number;
}

export interface IndexedPage {
  /** The page's identity in the index: its canonical URL (query variants of one page collapse). */
  key: string;
  /** The URL results show: the canonical URL. */
  url: string;
  title: string;
  description: string;
  /** Main text (the document's markdown, else text of the HTML). */
  text: string;
  contentType: string;
  language?: string;
  keywords: string[];
  /** Publication date (ISO) of an article: article:published_time and kin, or the article's <time>. */
  publishedAt?: string;
  /** Any date of the page (published, modified, or the first <time datetime>). */
  date?: string;
  images: IndexedImage[];
  /** og:image, for news items. */
  leadImage?: string;
  /** Meta tag names present (lowercase), for category rules such as citation_* (research). */
  metaNames: string[];
  /** Insertion order: ties in ranking keep it. */
  seq: number;
}

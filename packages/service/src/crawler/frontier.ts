// The crawl frontier: URLs waiting to be scraped, the set of URLs already seen, and the
// page budget (`limit` counts unique pages admitted to the queue).

export interface FrontierItem {
  url: URL;
  key: string;
  /** Discovery depth: 0 for the start URL and sitemap URLs, parent + 1 for links. */
  depth: number;
}

export class Frontier {
  private readonly seen = new Set<string>();
  private queue: FrontierItem[] = [];
  private head = 0;
  private admitted = 0;

  constructor(private readonly limit: number) {}

  get waiting(): number {
    return this.queue.length - this.head;
  }

  get isFull(): boolean {
    return this.admitted >= this.limit;
  }

  hasSeen(key: string): boolean {
    return this.seen.has(key);
  }

  /** Marks a key as seen (a URL reached by redirect, or a URL rejected after a check). */
  markSeen(key: string): void {
    this.seen.add(key);
  }

  /**
   * Reserves a page slot for a new key: false when the key was seen or the budget is
   * spent. The slot is confirmed by push() or given back by release().
   */
  reserve(key: string): boolean {
    if (this.seen.has(key) || this.isFull) return false;
    this.seen.add(key);
    this.admitted++;
    return true;
  }

  release(): void {
    this.admitted--;
  }

  push(item: FrontierItem): void {
    this.queue.push(item);
  }

  shift(): FrontierItem | undefined {
    if (this.head >= this.queue.length) return undefined;
    const item = this.queue[this.head++];
    // Compact now and then so a long crawl does not keep every visited item alive.
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  /** Drops everything still waiting (cancel, out of credits). */
  clear(): void {
    this.queue = [];
    this.head = 0;
  }
}

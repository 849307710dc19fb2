// Which hosts and paths a crawl may visit: crawlEntireDomain, allowSubdomains and
// allowExternalLinks, relative to the start URL.

export interface ScopeOptions {
  crawlEntireDomain: boolean;
  allowSubdomains: boolean;
  allowExternalLinks: boolean;
}

export type HostRelation = 'same' | 'subdomain' | 'external';

/** `www.example.com` and `example.com` are the same site. */
function baseHostname(hostname: string): string {
  return hostname.startsWith('www.') ? hostname.slice(4) : hostname;
}

/**
 * The path prefix under which a URL counts as a child of the start URL. A start path
 * whose last segment looks like a file (`/blog/index.html`) stands for its folder.
 */
export function childPrefix(startPath: string): string {
  if (startPath.endsWith('/')) return startPath;
  const last = startPath.slice(startPath.lastIndexOf('/') + 1);
  if (last.includes('.')) return startPath.slice(0, startPath.lastIndexOf('/') + 1);
  return `${startPath}/`;
}

export class UrlScope {
  private readonly host: string;
  private readonly port: string;
  private readonly startPath: string;
  private readonly prefix: string;

  constructor(start: URL, private readonly options: ScopeOptions) {
    this.host = baseHostname(start.hostname);
    this.port = start.port;
    this.startPath = start.pathname;
    this.prefix = childPrefix(start.pathname);
  }

  /** The same rules around another start URL (the page the start URL redirected to). */
  rebased(start: URL): UrlScope {
    return new UrlScope(start, this.options);
  }

  relation(url: URL): HostRelation {
    if (url.port !== this.port) return 'external';
    const host = baseHostname(url.hostname);
    if (host === this.host) return 'same';
    if (host.endsWith(`.${this.host}`)) return 'subdomain';
    return 'external';
  }

  /**
   * Whether the crawl may visit `url`. The child-path rule applies on the start host
   * only: a subdomain or external site has its own path space.
   */
  allows(url: URL): boolean {
    switch (this.relation(url)) {
      case 'same':
        return this.options.crawlEntireDomain || url.pathname === this.startPath || url.pathname.startsWith(this.prefix);
      case 'subdomain':
        return this.options.allowSubdomains || this.options.allowExternalLinks;
      case 'external':
        return this.options.allowExternalLinks;
    }
  }
}

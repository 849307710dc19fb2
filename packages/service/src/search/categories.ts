/*
 * Search `categories` (reference 4.12). A page belongs to:
 * - github:   a page on github.com, gist.github.com, *.github.com or *.github.io;
 * - research: a page on a scholarly host (arxiv.org, doi.org, biorxiv.org, medrxiv.org,
 *             ssrn.com, openreview.net, semanticscholar.org, researchgate.net, dl.acm.org,
 *             ieeexplore.ieee.org, pubmed.ncbi.nlm.nih.gov, ncbi.nlm.nih.gov/pmc,
 *             scholar.google.*, jstor.org, nature.com, sciencedirect.com, springer.com,
 *             link.springer.com), or any page carrying Highwire/Google Scholar citation
 *             meta tags (citation_title, citation_doi, ...);
 * - pdf:      a PDF (content type application/pdf, or a URL path ending in .pdf).
 * With categories given, web results are only pages in one of them, each labelled with the
 * first requested category it belongs to.
 */
import type { IndexedPage } from './page.js';

export type Category = 'github' | 'research' | 'pdf';

const RESEARCH_HOSTS = [
  'arxiv.org', 'doi.org', 'biorxiv.org', 'medrxiv.org', 'ssrn.com', 'openreview.net', 'semanticscholar.org',
  'researchgate.net', 'dl.acm.org', 'ieeexplore.ieee.org', 'pubmed.ncbi.nlm.nih.gov', 'jstor.org', 'nature.com',
  'sciencedirect.com', 'springer.com', 'link.springer.com',
];

function hostIs(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

export function inCategory(page: IndexedPage, category: Category): boolean {
  let url: URL;
  try {
    url = new URL(page.url);
  } catch {
    return false;
  }
  const host = url.hostname.toLowerCase();
  switch (category) {
    case 'github':
      return hostIs(host, 'github.com') || hostIs(host, 'github.io');
    case 'research':
      return RESEARCH_HOSTS.some((d) => hostIs(host, d))
        || (hostIs(host, 'ncbi.nlm.nih.gov') && url.pathname.startsWith('/pmc'))
        || /^scholar\.google\./.test(host)
        || page.metaNames.some((n) => n.startsWith('citation_'));
    case 'pdf':
      return /application\/pdf/i.test(page.contentType) || /\.pdf$/i.test(url.pathname);
  }
}

export function categoryOf(page: IndexedPage, requested: Category[]): Category | undefined {
  return requested.find((c) => inCategory(page, c));
}

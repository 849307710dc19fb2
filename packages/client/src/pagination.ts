// Following `next` through the chunks of a crawl or batch status.
//
// Two hazards from the contract notes ("Jobs"): on a running job `next` may point at the
// same `skip` again, and some deployments ignore `skip` and return the same items. So the
// walk stops when a `next` was already followed or a page brings no item not seen
// before; that page is not yielded. Callers poll again later for more.
import type { JobStatusResponse, ScrapeDocument } from 'webdata-contract';

export type FetchPage<T> = (next: string) => Promise<T>;

function itemKey(doc: ScrapeDocument): string {
  const m = doc.metadata;
  const key = m?.sourceURL ?? m?.url ?? (typeof doc.url === 'string' ? doc.url : undefined);
  return typeof key === 'string' ? key : JSON.stringify(doc);
}

export async function* followPages<T extends JobStatusResponse>(first: T, fetchPage: FetchPage<T>): AsyncGenerator<T, void, undefined> {
  const seenItems = new Set<string>();
  const followed = new Set<string>();
  for (const doc of first.data) seenItems.add(itemKey(doc));
  yield first;
  let next = first.next;
  while (typeof next === 'string' && next !== '' && !followed.has(next)) {
    followed.add(next);
    const page = await fetchPage(next);
    let fresh = 0;
    for (const doc of page.data) {
      const key = itemKey(doc);
      if (!seenItems.has(key)) {
        seenItems.add(key);
        fresh++;
      }
    }
    if (fresh === 0) return;
    yield page;
    next = page.next;
  }
}

// Map's link walk gives the same URLs, in the same order, whichever fetch answers first: a site
// larger than the walk's cap, fetched once with answers in page order and once in reverse.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import type { FetchedResource, ResourceFetcher } from '../src/crawler/fetcher.js';
import { RobotsBook } from '../src/crawler/robots.js';
import { DISCOVERY_MAX_PAGES, discoverLinks } from '../src/map/discover.js';

const ORIGIN = 'http://site.test';
const HUBS = 30;
const LEAVES_PER_HUB = 20;

/** root → 30 hubs → 20 leaves each → one deep page per leaf: 631 pages, past the cap of 200. */
function pageLinks(path: string): string[] {
  if (path === '/') return Array.from({ length: HUBS }, (_, h) => `/hub-${h}`);
  const hub = /^\/hub-(\d+)$/.exec(path);
  if (hub) return Array.from({ length: LEAVES_PER_HUB }, (_, l) => `/leaf-${hub[1]}-${l}`);
  const leaf = /^\/leaf-(\d+)-(\d+)$/.exec(path);
  if (leaf) return [`/deep-${leaf[1]}-${leaf[2]}`];
  return [];
}

/** Answers each page after a delay that `order` picks from the page's request number. */
function siteFetcher(order: (n: number) => number): ResourceFetcher {
  let requests = 0;
  return {
    async fetch(url: string): Promise<FetchedResource> {
      const { pathname } = new URL(url);
      if (pathname === '/robots.txt') return { status: 404, url, contentType: 'text/plain', body: Buffer.from('') };
      await delay(order(requests++));
      const html = `<html><head><title>${pathname}</title></head><body>${pageLinks(pathname).map((p) => `<a href="${p}">${p}</a>`).join('')}</body></html>`;
      return { status: 200, url, contentType: 'text/html', body: Buffer.from(html) };
    },
    async close() {},
  };
}

async function walk(fetcher: ResourceFetcher): Promise<string[]> {
  const found: string[] = [];
  const seen = new Set<string>();
  const signal = new AbortController().signal;
  await discoverLinks(new URL(`${ORIGIN}/`), {
    fetcher,
    robots: new RobotsBook(fetcher, 'test', signal),
    inScope: (u) => u.origin === ORIGIN,
    keyOf: (u) => u.href,
    signal,
    enough: () => false,
    found: (u) => {
      if (!seen.has(u.href)) found.push(u.pathname);
      seen.add(u.href);
    },
  });
  return found;
}

test('the walk takes pages in breadth-first order up to its cap, whichever fetch answers first', async () => {
  const inOrder = await walk(siteFetcher(() => 0));
  // Within each group of 8 (the walk's concurrency), later requests answer first.
  const reversed = await walk(siteFetcher((n) => 8 - (n % 8)));
  assert.deepEqual(reversed, inOrder);
  // The first 200 pages of the breadth-first order were walked: root, 30 hubs and the first 169 leaves.
  const leavesWalked = DISCOVERY_MAX_PAGES - 1 - HUBS;
  const deep = inOrder.filter((p) => p.startsWith('/deep-'));
  assert.equal(deep.length, leavesWalked);
  assert.deepEqual(deep.slice(0, 3), ['/deep-0-0', '/deep-0-1', '/deep-0-2']);
  assert.equal(deep.at(-1), `/deep-${Math.floor((leavesWalked - 1) / LEAVES_PER_HUB)}-${(leavesWalked - 1) % LEAVES_PER_HUB}`);
  assert.equal(inOrder.length, 1 + HUBS + HUBS * LEAVES_PER_HUB + leavesWalked);
});

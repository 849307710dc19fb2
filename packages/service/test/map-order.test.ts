// Map's answer does not depend on which source answers first: the start URL, the sitemap's URLs
// in its order, then the walk's in breadth-first order, also when the limit cuts the list.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import type { FetchedResource, ResourceFetcher } from '../src/crawler/fetcher.js';
import type { JobsRuntime } from '../src/jobs/runtime.js';
import { mapSite } from '../src/map/mapper.js';
import { MapCache } from '../src/map/map-cache.js';

const ORIGIN = 'http://site.test';
const LINKED = 40;
const SITEMAPPED = 40;

/** `/` links /a-0.. (and /s-0, also in the sitemap); the sitemap lists /s-0.. . */
function siteFetcher(delays: { sitemapMs: number; pageMs: number }): ResourceFetcher {
  return {
    async fetch(url: string): Promise<FetchedResource> {
      const { pathname } = new URL(url);
      if (pathname === '/robots.txt') return { status: 404, url, contentType: 'text/plain', body: Buffer.from('') };
      if (pathname === '/sitemap.xml') {
        await delay(delays.sitemapMs);
        const urls = Array.from({ length: SITEMAPPED }, (_, i) => `<url><loc>${ORIGIN}/s-${i}</loc></url>`).join('');
        return { status: 200, url, contentType: 'application/xml', body: Buffer.from(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`) };
      }
      await delay(delays.pageMs);
      const links = pathname === '/' ? ['/s-0', ...Array.from({ length: LINKED }, (_, i) => `/a-${i}`)] : [];
      const html = `<html><head><title>${pathname}</title></head><body>${links.map((p) => `<a href="${p}">${p}</a>`).join('')}</body></html>`;
      return { status: 200, url, contentType: 'text/html', body: Buffer.from(html) };
    },
    async close() {},
  };
}

async function map(delays: { sitemapMs: number; pageMs: number }, limit: number): Promise<Array<{ url: string; title?: string }>> {
  // mapSite reads only the runtime's fetcher.
  const jobsRuntime = { fetcher: siteFetcher(delays) } as unknown as JobsRuntime;
  const links = await mapSite(jobsRuntime, new MapCache(Date.now), { url: `${ORIGIN}/`, limit }, new AbortController().signal);
  return links.map((l) => ({ url: new URL(l.url).pathname, ...(l.title ? { title: l.title } : {}) }));
}

test('the same list whichever source answers first, when the limit cuts it and when it does not', async () => {
  const sitemapFirst = { sitemapMs: 0, pageMs: 300 };
  const walkFirst = { sitemapMs: 300, pageMs: 0 };
  for (const limit of [30, 60, 1000]) {
    const a = await map(sitemapFirst, limit);
    const b = await map(walkFirst, limit);
    assert.deepEqual(b, a, `limit ${limit}`);
  }
  const cut = await map(walkFirst, 30);
  assert.deepEqual(cut.map((l) => l.url), ['/', ...Array.from({ length: 29 }, (_, i) => `/s-${i}`)]);
  const all = await map(walkFirst, 1000);
  assert.equal(all.length, 1 + SITEMAPPED + LINKED);
  assert.deepEqual(all.slice(1 + SITEMAPPED, 1 + SITEMAPPED + 2).map((l) => l.url), ['/a-0', '/a-1']);
  // A sitemap URL the walk also found carries the title the walk read.
  assert.equal(all.find((l) => l.url === '/s-0')?.title, '/s-0');
});

// POST /v2/map against a site that fails for a moment: a sitemap or walk page answering 503 (or
// a reset) is read again after a pause, and what still fails leaves the map's answer partial but
// uncached, so the next map reads the site again instead of repeating the partial list for a week.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { startJobsStack, type JobsStack } from './jobs-helpers.js';

interface FlakySite {
  url: string;
  /** Requests per path. */
  hits: Map<string, number>;
  /** Path → how many more requests fail (503; 'reset' for a dropped connection), or Infinity. */
  failing: Map<string, { left: number; how: 503 | 'reset' }>;
  close(): Promise<void>;
}

async function startFlakySite(): Promise<FlakySite> {
  const hits = new Map<string, number>();
  const failing = new Map<string, { left: number; how: 503 | 'reset' }>();
  const page = (title: string, links: string[]) =>
    `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</main></body></html>`;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const failure = failing.get(path);
    if (failure && failure.left > 0) {
      failure.left--;
      if (failure.how === 'reset') {
        req.socket.destroy();
        return;
      }
      res.writeHead(503, { 'content-type': 'text/plain' }).end('busy');
      return;
    }
    const origin = `http://${req.headers.host}`;
    if (path === '/sitemap.xml') {
      const urls = ['/s1', '/s2', '/s3'].map((p) => `<url><loc>${origin}${p}</loc></url>`).join('');
      res.writeHead(200, { 'content-type': 'application/xml' }).end(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`);
      return;
    }
    const pages: Record<string, string> = {
      '/': page('Home', ['/a', '/b']),
      '/a': page('A', ['/']),
      '/b': page('B', ['/b-child']),
      '/b-child': page('B child', []),
      '/s1': page('S1', []), '/s2': page('S2', []), '/s3': page('S3', []),
    };
    if (pages[path]) res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(pages[path]);
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    failing,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

describe('map of a site that fails for a moment', () => {
  let stack: JobsStack;
  let site: FlakySite;
  before(async () => {
    stack = await startJobsStack();
    site = await startFlakySite();
  });
  after(async () => {
    await site.close();
    await stack.close();
  });

  async function mapped(body: Record<string, unknown> = {}): Promise<string[]> {
    const res = await stack.call('POST', '/v2/map', { body: { url: `${site.url}/`, ...body } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return ((res.body as { links: { url: string }[] }).links).map((l) => new URL(l.url).pathname).sort();
  }

  test('a sitemap that answers 503 once, and a page whose connection drops once, are read again', async () => {
    site.failing.set('/sitemap.xml', { left: 1, how: 503 });
    site.failing.set('/b', { left: 1, how: 'reset' });
    const paths = await mapped({ ignoreCache: true });
    assert.deepEqual(paths, ['/', '/a', '/b', '/b-child', '/s1', '/s2', '/s3']);
    assert.equal(site.failing.get('/sitemap.xml')!.left, 0);
    assert.equal(site.failing.get('/b')!.left, 0);
  });

  test('what is still down is missing from the answer and not cached: the next map reads it', async () => {
    site.failing.set('/sitemap.xml', { left: Infinity, how: 503 });
    site.failing.set('/b', { left: Infinity, how: 503 });
    const before = { sitemap: site.hits.get('/sitemap.xml') ?? 0, b: site.hits.get('/b') ?? 0 };
    const partial = await mapped({ ignoreCache: true });
    assert.deepEqual(partial, ['/', '/a', '/b'], 'the walk still reports /b (linked from /), not what /b links to');
    assert.equal(site.hits.get('/sitemap.xml')! - before.sitemap, 3, 'three attempts at the sitemap');
    assert.equal(site.hits.get('/b')! - before.b, 3, 'three attempts at /b');

    // The site is back: a map without ignoreCache reads it again rather than answering the partial list.
    site.failing.clear();
    assert.deepEqual(await mapped(), ['/', '/a', '/b', '/b-child', '/s1', '/s2', '/s3']);
    // That complete read is cached: the next map fetches neither the sitemap nor the pages.
    const cached = { sitemap: site.hits.get('/sitemap.xml'), home: site.hits.get('/') };
    assert.deepEqual(await mapped(), ['/', '/a', '/b', '/b-child', '/s1', '/s2', '/s3']);
    assert.deepEqual({ sitemap: site.hits.get('/sitemap.xml'), home: site.hits.get('/') }, cached);
  });
});

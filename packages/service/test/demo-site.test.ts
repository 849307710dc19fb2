// The demo site: manifest exactness (against the served HTML), robots.txt, sitemaps, host alias,
// special pages and determinism.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { load } from 'cheerio';
import robotsParserModule from 'robots-parser';
import {
  buildManifest, DEMO_PDF_TITLE, NAMED_ROBOTS_AGENT, startDemoSite, type DemoSite, type ManifestEntry,
} from '../src/demo-site/index.js';

async function get(url: string, init?: RequestInit): Promise<{ status: number; type: string; body: string; headers: Headers }> {
  const res = await fetch(url, { redirect: 'manual', ...init });
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: await res.text(), headers: res.headers };
}

/** GET with an explicit Host header (fetch does not allow setting it). */
function getWithHost(port: number, path: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

// robots-parser is CommonJS with typings that declare an ES default export.
type RobotsParser = (url: string, body: string) => { isAllowed(url: string, ua?: string): boolean | undefined };
const robotsParser: RobotsParser =
  (robotsParserModule as unknown as { default?: RobotsParser }).default ?? (robotsParserModule as unknown as RobotsParser);

const locs = (xml: string): string[] => [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1].replace(/&amp;/g, '&'));
const paths = (entries: ManifestEntry[]): string[] => entries.map((e) => e.path).sort();

describe('demo site manifest (no server)', () => {
  const m = buildManifest({ origin: 'http://127.0.0.1:4000', pages: 60, seed: 1 });

  it('has the documented sections and counts for 60 pages', () => {
    const main = m.entries.filter((e) => e.host === 'main');
    assert.equal(main.filter((e) => /^\/blog\/post-\d+$/.test(e.path)).length, 20);
    assert.equal(main.filter((e) => /^\/shop\/item-\d+$/.test(e.path)).length, 20);
    assert.equal(main.filter((e) => e.section === 'docs' && e.kind === 'html' && e.path !== '/docs').length, 20);
    assert.deepEqual(paths(main.filter((e) => /^\/(blog|shop)\/page\//.test(e.path))), ['/blog/page/2', '/shop/page/2']);
    assert.deepEqual(paths(m.entries.filter((e) => e.host === 'alias')), ['/', '/about', '/posts/1', '/posts/2', '/posts/3', '/posts/4', '/posts/5']);
    assert.equal(m.entries.length, new Set(m.entries.map((e) => e.url)).size, 'urls are unique');
  });

  it('knows orphans (sitemap only), link-only pages and unlinked pages', () => {
    const orphans = m.entries.filter((e) => e.depth === null && e.inSitemap);
    assert.deepEqual(orphans.map((e) => e.url).sort(), [
      'http://127.0.0.1:4000/blog/post-17', 'http://127.0.0.1:4000/blog/post-7',
      'http://127.0.0.1:4000/shop/item-19', 'http://127.0.0.1:4000/shop/item-9',
      'http://blog.localhost:4000/posts/5',
    ]);
    for (const e of orphans) assert.deepEqual(e.linkedFrom, []);
    const unlinked = m.entries.filter((e) => e.depth === null && !e.inSitemap);
    assert.deepEqual(paths(unlinked), ['/go/alias', '/go/docs', '/go/external', '/go/loop', '/old-blog', '/slow']);
    assert.equal(m.get('http://127.0.0.1:4000/blog/post-2')!.inSitemap, false);
    assert.ok(m.get('http://127.0.0.1:4000/blog/post-2')!.depth !== null);
  });

  it('computes link depths from /', () => {
    const depth = (path: string) => m.get(`http://127.0.0.1:4000${path}`)?.depth;
    assert.equal(depth('/'), 0);
    for (const p of ['/blog', '/docs', '/shop', '/about', '/private/', '/blog/post-1', '/docs/guide-1', '/shop/item-3?ref=home', '/app/dashboard']) {
      assert.equal(depth(p), 1, p);
    }
    for (const p of ['/blog/page/2', '/blog/missing-post', '/docs/broken-page', '/files/report.pdf', '/docs/guide-1/part-1', '/shop/item-3?color=red']) {
      assert.equal(depth(p), 2, p);
    }
    assert.equal(m.get('http://blog.localhost:4000/posts/1')!.depth, 1);
    assert.equal(m.get('http://blog.localhost:4000/posts/4')!.depth, 1);
    assert.equal(m.get('http://127.0.0.1:4000/blog')!.linkedFrom.includes('http://blog.localhost:4000/'), true);
  });

  it('nests docs and flags robots rules', () => {
    const big = buildManifest({ origin: 'http://127.0.0.1:4000', pages: 200 });
    const deep = big.get('http://127.0.0.1:4000/docs/guide-1/part-2/section-c')!;
    assert.equal(deep.depth, 3);
    assert.equal(deep.section, 'docs');
    assert.deepEqual(m.entries.filter((e) => e.robotsDisallowed).map((e) => e.path).sort(), ['/private/', '/private/report-1', '/private/report-2']);
    assert.ok(m.get('http://127.0.0.1:4000/shop/item-1')!.robotsDisallowedNamedAgent);
    assert.ok(!m.get('http://127.0.0.1:4000/blog/post-1')!.robotsDisallowedNamedAgent);
  });

  it('is deterministic for a seed and differs across seeds', () => {
    const again = buildManifest({ origin: 'http://127.0.0.1:4000', pages: 60, seed: 1 });
    assert.deepEqual(again.entries, m.entries);
    const other = buildManifest({ origin: 'http://127.0.0.1:4000', pages: 60, seed: 2 });
    assert.deepEqual(paths(other.entries), paths(m.entries));
    assert.notEqual(other.get('http://127.0.0.1:4000/blog/post-1')!.title, m.get('http://127.0.0.1:4000/blog/post-1')!.title);
  });

  it('stays cheap at 10000 pages', () => {
    // CPU time of this process, not wall time: other work on the machine does not count.
    const t0 = process.cpuUsage();
    const huge = buildManifest({ origin: 'http://127.0.0.1:4000', pages: 10_000 });
    const { user, system } = process.cpuUsage(t0);
    const ms = (user + system) / 1000;
    assert.ok(huge.entries.length > 10_000);
    assert.ok(ms < 5000, `took ${ms} ms of CPU`);
    const titles = new Set(huge.entries.filter((e) => e.kind === 'html' && !e.path.includes('?')).map((e) => e.title));
    assert.equal(titles.size, huge.entries.filter((e) => e.kind === 'html' && !e.path.includes('?')).length, 'titles are distinct');
  });

  it('rejects a bad page count', () => {
    assert.throws(() => buildManifest({ origin: 'http://127.0.0.1:4000', pages: 2 }), RangeError);
  });
});

describe('demo site server', () => {
  let site: DemoSite;
  before(async () => {
    site = await startDemoSite({ pages: 60, seed: 1, slowMs: 200 });
  });
  after(async () => {
    await site.close();
  });

  it('serves exactly the links the manifest lists, on every page', async () => {
    for (const entry of site.manifest.entries) {
      const res = entry.host === 'main'
        ? await get(entry.url)
        : await getWithHost(site.port, entry.path, new URL(site.aliasUrl).host).then((r) => ({ ...r, type: 'text/html' }));
      assert.equal(res.status, entry.status, entry.url);
      if (!res.type.startsWith('text/html') || entry.kind === 'redirect') continue;
      const $ = load(res.body);
      const links = new Set<string>();
      $('a[href]').each((_, el) => {
        links.add(new URL($(el).attr('href')!, entry.url).href);
      });
      assert.deepEqual([...links].sort(), [...entry.links].sort(), entry.url);
      if (entry.kind === 'html') {
        assert.equal($('title').text(), entry.title, entry.url);
        assert.equal($('html').attr('lang'), entry.language, entry.url);
        assert.equal($('meta[name=description]').attr('content'), entry.description, entry.url);
        assert.equal($('link[rel=canonical]').attr('href'), entry.canonicalUrl, entry.url);
      }
    }
  });

  it('serves robots.txt that agrees with the manifest', async () => {
    const robotsUrl = `${site.url}/robots.txt`;
    const res = await get(robotsUrl);
    assert.equal(res.status, 200);
    assert.match(res.body, /User-agent: \*\nDisallow: \/private\//);
    assert.match(res.body, new RegExp(`User-agent: ${NAMED_ROBOTS_AGENT}\\nDisallow: /shop`));
    assert.ok(res.body.includes(`Sitemap: ${site.url}/sitemap.xml`));
    const robots = robotsParser(robotsUrl, res.body);
    for (const e of site.manifest.entries.filter((x) => x.host === 'main')) {
      assert.equal(robots.isAllowed(e.url, 'WebDataBot'), !e.robotsDisallowed, e.url);
      assert.equal(robots.isAllowed(e.url, NAMED_ROBOTS_AGENT), !e.robotsDisallowedNamedAgent, e.url);
    }
  });

  it('serves a sitemap index whose sitemaps (one gzipped) list exactly the sitemap pages', async () => {
    const index = await get(`${site.url}/sitemap.xml`);
    assert.match(index.body, /<sitemapindex/);
    const files = locs(index.body);
    assert.deepEqual(files.map((f) => new URL(f).pathname), ['/sitemaps/pages.xml', '/sitemaps/blog.xml', '/sitemaps/docs.xml', '/sitemaps/shop.xml.gz']);
    const listed: string[] = [];
    for (const file of files) {
      const res = await fetch(file);
      assert.equal(res.status, 200);
      const bytes = Buffer.from(await res.arrayBuffer());
      const xml = file.endsWith('.gz') ? gunzipSync(bytes).toString('utf8') : bytes.toString('utf8');
      if (file.endsWith('.gz')) assert.equal(res.headers.get('content-type'), 'application/gzip');
      assert.match(xml, /<urlset/);
      listed.push(...locs(xml));
    }
    const expected = site.manifest.entries.filter((e) => e.host === 'main' && e.inSitemap).map((e) => e.url);
    assert.deepEqual(listed.sort(), expected.sort());
  });

  it('answers as the blog.localhost alias by Host header', async () => {
    const host = new URL(site.aliasUrl).host;
    assert.equal(site.aliasUrl, `http://blog.localhost:${site.port}`);
    const home = await getWithHost(site.port, '/', host);
    assert.match(home.body, /<title>Team Blog<\/title>/);
    const robots = await getWithHost(site.port, '/robots.txt', host);
    assert.ok(robots.body.includes(`Sitemap: ${site.aliasUrl}/sitemap.xml`));
    const sitemap = await getWithHost(site.port, '/sitemap.xml', host);
    const expected = site.manifest.entries.filter((e) => e.host === 'alias' && e.inSitemap).map((e) => e.url);
    assert.deepEqual(locs(sitemap.body).sort(), expected.sort());
    const main = await getWithHost(site.port, '/', `localhost:${site.port}`);
    assert.match(main.body, /<title>Demo Site: Home<\/title>/);
  });

  it('serves errors, redirects, the PDF, the JS page, load-more API and big pages', async () => {
    assert.equal((await get(`${site.url}/blog/missing-post`)).status, 404);
    assert.equal((await get(`${site.url}/docs/broken-page`)).status, 500);
    assert.equal((await get(`${site.url}/nope`)).status, 404);
    const moved = await get(`${site.url}/old-blog`);
    assert.equal(moved.status, 301);
    assert.equal(moved.headers.get('location'), '/blog');

    const pdf = await fetch(`${site.url}/files/report.pdf`);
    assert.equal(pdf.headers.get('content-type'), 'application/pdf');
    const bytes = Buffer.from(await pdf.arrayBuffer());
    assert.equal(bytes.subarray(0, 5).toString(), '%PDF-');
    assert.ok(bytes.includes(Buffer.from(DEMO_PDF_TITLE)) || bytes.length > 500);

    const app = await get(`${site.url}/app/dashboard`);
    assert.match(app.body, /<meta name="webdata:render" content="javascript">/);
    assert.match(app.body, /<div id="root"><\/div>/);

    const catalog = load((await get(`${site.url}/shop/catalog`)).body);
    assert.equal(catalog('#catalog-items li').length, 10);
    assert.equal(catalog('#load-more').length, 1);
    const api = JSON.parse((await get(`${site.url}/api/items?page=2`)).body) as { items: Array<{ url: string }>; nextPage: number | null };
    assert.equal(api.items.length, 8); // 18 listed items: 10 on the page, 8 more
    assert.equal(api.nextPage, null);

    const big = await get(`${site.url}/big/7?kb=300`);
    assert.equal(big.status, 200);
    assert.ok(big.body.length > 300 * 1024 && big.body.length < 320 * 1024, String(big.body.length));
  });

  it('delays /slow, reflects device and echo headers, and logs requests', async () => {
    const t0 = Date.now();
    assert.equal((await get(`${site.url}/slow?ms=150`)).status, 200);
    assert.ok(Date.now() - t0 >= 140);
    site.resetRequests();
    const mobile = await get(`${site.url}/about`, { headers: { 'user-agent': 'Mozilla/5.0 (iPhone) Mobile Safari', 'x-demo-echo': 'hello' } });
    assert.match(mobile.body, /<meta name="webdata:device" content="mobile">/);
    assert.match(mobile.body, /<meta name="webdata:echo" content="hello">/);
    assert.equal(site.requests.length, 1);
    assert.equal(site.requests[0].path, '/about');
  });
});

describe('demo site options', () => {
  it('links big pages when asked and lists them in the manifest', async () => {
    const site = await startDemoSite({ pages: 9, bigPages: 3, bigKb: 50 });
    try {
      const bigs = site.manifest.entries.filter((e) => e.section === 'big');
      assert.deepEqual(paths(bigs), ['/big', '/big/1?kb=50', '/big/2?kb=50', '/big/3?kb=50']);
      assert.equal(site.manifest.get(`${site.url}/big/2?kb=50`)!.depth, 2);
      const res = await get(`${site.url}/big/2?kb=50`);
      assert.ok(res.body.length > 50 * 1024);
    } finally {
      await site.close();
    }
  });
});

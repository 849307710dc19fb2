// The HTTP scrape engine against the demo site: formats, metadata, main content, tags, tables,
// base64 images, error pages, redirects, timeouts, PDFs, the cache, the destination guard and
// the clear refusal of browser-only options.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import dns from 'node:dns';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpError } from '../src/core/http-error.js';
import type { ScrapeRequestContext } from '../src/core/scrape.js';
import type { TeamConfig } from '../src/core/teams.js';
import { DEMO_JS_TEXT, DEMO_PDF_TEXT, startDemoSite, type DemoSite } from '../src/demo-site/index.js';
import { createHttpScrapeEngine, type HttpScrapeEngine } from '../src/scrape/index.js';

const TEAM: TeamConfig = {
  id: 'team-test',
  apiKeys: ['key'],
  credits: 1000,
  rateLimits: {},
  concurrency: 4,
  maxBrowserSessions: 1,
  features: { ignoreRobotsTxt: false, zeroDataRetention: true, searchEnterprise: [] },
};
const ctx = (signal?: AbortSignal): ScrapeRequestContext => ({ scrapeId: randomUUID(), team: TEAM, signal });

/** Matches an HttpError by status and code. */
const httpError = (status: number, code: string) => (err: unknown) => {
  assert.ok(err instanceof HttpError, `expected HttpError, got ${String(err)}`);
  assert.equal(err.status, status, err.message);
  assert.equal(err.code, code, err.message);
  return true;
};

/** Counts undici requests created while `fn` runs (none means no network attempt at all). */
async function undiciRequests(fn: () => Promise<unknown>): Promise<number> {
  let count = 0;
  const onCreate = () => {
    count++;
  };
  subscribe('undici:request:create', onCreate);
  try {
    await fn().catch(() => undefined);
  } finally {
    unsubscribe('undici:request:create', onCreate);
  }
  return count;
}

/** Counts node:dns lookups (the engine's connector resolves names with it) while `fn` runs. */
async function dnsLookups(fn: () => Promise<unknown>): Promise<number> {
  let count = 0;
  const original = dns.lookup;
  dns.lookup = ((...args: unknown[]) => {
    count++;
    return (original as (...a: unknown[]) => void)(...args);
  }) as typeof dns.lookup;
  syncBuiltinESMExports(); // so `import { lookup } from 'node:dns'` sees the spy too
  try {
    await fn();
  } finally {
    dns.lookup = original;
    syncBuiltinESMExports();
  }
  return count;
}

describe('HTTP scrape engine on the demo site', () => {
  let site: DemoSite;
  let engine: HttpScrapeEngine;
  // A fresh copy for every call: these tests look at conversion, not at the cache.
  const fresh = { maxAge: 0 };

  before(async () => {
    site = await startDemoSite({ pages: 60, seed: 7 });
    engine = createHttpScrapeEngine();
  });
  after(async () => {
    await engine.close();
    await site.close();
  });

  it('returns markdown of the main content by default', async () => {
    const out = await engine.scrape(`${site.url}/blog/post-1`, { ...fresh }, ctx());
    const doc = out.document;
    assert.equal(out.engine, 'http');
    assert.deepEqual(Object.keys(doc).sort(), ['markdown', 'metadata']);
    const md = doc.markdown!;
    const entry = site.manifest.get(`${site.url}/blog/post-1`)!;
    // The reference's rule removes every <header>, the article's own (title, date) too.
    assert.ok(md.startsWith(entry.description), md.slice(0, 80));
    assert.ok(!md.includes(`# ${entry.title}`), md.slice(0, 80));
    for (const boilerplate of ['© 2024', 'Staff area', 'Related', '[Home]', 'analytics']) {
      assert.ok(!md.includes(boilerplate), `main content should not contain "${boilerplate}"`);
    }
    assert.ok(md.includes(`](${site.url}/blog/post-2)`), 'content links are absolute');
  });

  it('keeps nav, footer and sidebars with onlyMainContent: false', async () => {
    const { document } = await engine.scrape(`${site.url}/blog/post-1`, { ...fresh, onlyMainContent: false }, ctx());
    const md = document.markdown!;
    for (const text of ['© 2024 Demo Site', `[Blog](${site.url}/blog)`, '## Related', 'Share on Chirp', 'Staff area']) {
      assert.ok(md.includes(text), `expected "${text}"`);
    }
    assert.ok(!md.includes('analytics'), 'scripts are never content');
  });

  it('produces every format from one fetch, with absolute URLs and clean html', async () => {
    const url = `${site.url}/blog/post-4`;
    const raw = await (await fetch(url)).text();
    const { document, discoveredLinks } = await engine.scrape(url, {
      ...fresh, formats: ['markdown', { type: 'html' }, 'rawHtml', 'links', { type: 'images' }],
    }, ctx());
    assert.equal(document.rawHtml, raw);
    const html = document.html!;
    for (const gone of ['<script', '<style', '<!--', '<nav', '<footer', '<aside', 'href="/']) {
      assert.ok(!html.includes(gone), `html should not contain ${gone}`);
    }
    assert.ok(html.includes(`src="${site.url}/images/blog-4.svg"`));
    const entry = site.manifest.get(url)!;
    assert.deepEqual([...document.links!].sort(), [...entry.links].sort());
    assert.deepEqual([...discoveredLinks].sort(), [...new Set([...entry.links, entry.canonicalUrl])].sort());
    assert.deepEqual(document.images, [`${site.url}/images/blog-4.svg`]);
  });

  it('always reports discovered links, whatever the formats', async () => {
    for (const entry of site.manifest.entries.filter((e) => e.host === 'main' && e.kind === 'html' && e.status === 200)) {
      const { document, discoveredLinks } = await engine.scrape(entry.url, { ...fresh, formats: ['rawHtml'] }, ctx());
      assert.equal(document.markdown, undefined);
      assert.deepEqual([...discoveredLinks].sort(), [...new Set([...entry.links, entry.canonicalUrl])].sort(), entry.url);
    }
  });

  it('fills the metadata', async () => {
    const url = `${site.url}/blog/post-5`;
    const c = ctx();
    const { metadata } = (await engine.scrape(url, { ...fresh }, c)).document;
    const entry = site.manifest.get(url)!;
    assert.equal(metadata.title, entry.title);
    assert.equal(metadata.description, entry.description);
    assert.equal(metadata.language, 'de');
    assert.equal(metadata.keywords, entry.keywords.join(', '));
    assert.equal(metadata.ogTitle, entry.title);
    assert.equal(metadata.ogDescription, entry.description);
    assert.equal(metadata.ogImage, `${site.url}/images/og-blog.svg`);
    assert.equal(metadata.ogUrl, url);
    assert.equal(metadata.ogSiteName, 'Demo Site');
    assert.equal(metadata.ogLocale, 'en_US');
    assert.deepEqual(metadata.ogLocaleAlternate, ['de_DE', 'fr_FR']);
    assert.equal(metadata['og:type'], 'article');
    assert.equal(metadata['twitter:card'], 'summary');
    assert.equal(typeof metadata.author, 'string');
    assert.equal(metadata.sourceURL, url);
    assert.equal(metadata.url, url);
    assert.equal(metadata.statusCode, 200);
    assert.equal(metadata.contentType, 'text/html; charset=utf-8');
    assert.equal(metadata.scrapeId, c.scrapeId);
    assert.equal(metadata.proxyUsed, 'basic');
    assert.equal(metadata.creditsUsed, 1);
    assert.equal(metadata.error, undefined);
  });

  it('converts tables to GFM and honours includeTags / excludeTags', async () => {
    const url = `${site.url}/docs/guide-1`;
    const full = (await engine.scrape(url, { ...fresh }, ctx())).document.markdown!;
    assert.ok(full.includes('| Option | Type | Default |\n| --- | --- | --- |\n| timeout | integer | 1000 |'), full);

    const only = (await engine.scrape(url, { ...fresh, includeTags: ['table'] }, ctx())).document.markdown!;
    assert.equal(only, '| Option | Type | Default |\n| --- | --- | --- |\n| timeout | integer | 1000 |\n| retries | integer | 1 |\n| format | string | markdown |');

    // As on the reference, onlyMainContent applies to what includeTags keeps: a <nav> goes unless it is off.
    const nav = (await engine.scrape(url, { ...fresh, includeTags: ['nav.site-nav'], onlyMainContent: false }, ctx())).document.markdown!;
    assert.ok(nav.includes(`[Shop](${site.url}/shop)`), nav);
    assert.equal((await engine.scrape(url, { ...fresh, includeTags: ['nav.site-nav'] }, ctx())).document.markdown, '');

    const without = (await engine.scrape(url, { ...fresh, excludeTags: ['table', '.lead'] }, ctx())).document.markdown!;
    assert.ok(!without.includes('| Option |'));
    assert.ok(!without.includes(site.manifest.get(url)!.description));
    assert.ok(without.includes('## Options'));

    await assert.rejects(engine.scrape(url, { ...fresh, includeTags: ['p[['] }, ctx()), httpError(400, 'BAD_REQUEST'));
  });

  it('replaces base64 images unless removeBase64Images is false', async () => {
    const url = `${site.url}/about`;
    const removed = (await engine.scrape(url, { ...fresh, formats: ['markdown', 'html'] }, ctx())).document;
    assert.ok(removed.markdown!.includes('![Inline pixel](<Base64-Image-Removed>)'), removed.markdown);
    assert.ok(!removed.html!.includes('data:image'));
    const kept = (await engine.scrape(url, { ...fresh, formats: ['markdown', 'html'], removeBase64Images: false }, ctx())).document;
    assert.ok(kept.markdown!.includes('![Inline pixel](data:image/png;base64,'));
    assert.ok(kept.html!.includes('src="data:image/png;base64,'));
  });

  it('returns 404 and 500 pages as documents with statusCode and error', async () => {
    const missing = (await engine.scrape(`${site.url}/blog/missing-post`, { ...fresh }, ctx())).document;
    assert.equal(missing.metadata.statusCode, 404);
    assert.equal(missing.metadata.error, 'Not Found');
    assert.ok(missing.markdown!.includes('Not Found'));
    const broken = (await engine.scrape(`${site.url}/docs/broken-page`, { ...fresh }, ctx())).document;
    assert.equal(broken.metadata.statusCode, 500);
    assert.equal(broken.metadata.error, 'Internal Server Error');
  });

  it('follows redirects, also to the blog.localhost alias, and refuses ones that leave loopback', async () => {
    const moved = (await engine.scrape(`${site.url}/old-blog`, { ...fresh }, ctx())).document.metadata;
    assert.equal(moved.sourceURL, `${site.url}/old-blog`);
    assert.equal(moved.url, `${site.url}/blog`);
    assert.equal(moved.statusCode, 200);
    assert.equal(moved.title, 'Blog');

    const alias = (await engine.scrape(`${site.url}/go/alias`, { ...fresh }, ctx())).document.metadata;
    assert.equal(alias.url, `${site.aliasUrl}/`);
    assert.equal(alias.title, 'Team Blog');

    await assert.rejects(engine.scrape(`${site.url}/go/external`, { ...fresh }, ctx()), httpError(403, 'DESTINATION_NOT_ALLOWED'));
    await assert.rejects(engine.scrape(`${site.url}/go/loop`, { ...fresh }, ctx()), httpError(500, 'SCRAPE_TOO_MANY_REDIRECTS'));
  });

  it('scrapes the alias host and localhost directly', async () => {
    const post = await engine.scrape(`${site.aliasUrl}/posts/1`, { ...fresh, formats: ['markdown', 'links'] }, ctx());
    assert.match(post.document.metadata.title!, /^Team note 1:/);
    assert.ok(post.document.links!.includes(`${site.url}/blog`));
    const local = await engine.scrape(`http://localhost:${site.port}/about`, { ...fresh }, ctx());
    assert.equal(local.document.metadata.title, 'About the Demo Site');
  });

  it('times out with 408 SCRAPE_TIMEOUT', async () => {
    // The page answers only after 60 s: failing before that means the timeout did not wait for it.
    const t0 = Date.now();
    await assert.rejects(engine.scrape(`${site.url}/slow?ms=60000`, { ...fresh, timeout: 300 }, ctx()), httpError(408, 'SCRAPE_TIMEOUT'));
    assert.ok(Date.now() - t0 < 60_000, `took ${Date.now() - t0} ms`);
    const ok = await engine.scrape(`${site.url}/slow?ms=50`, { ...fresh, timeout: 60_000 }, ctx());
    assert.equal(ok.document.metadata.title, 'A slow page');
  });

  it('stops when the caller aborts, without calling it a timeout', async () => {
    const controller = new AbortController();
    const reason = new Error('job cancelled');
    setTimeout(() => controller.abort(reason), 100);
    await assert.rejects(engine.scrape(`${site.url}/slow?ms=5000`, { ...fresh }, ctx(controller.signal)), (err) => err === reason);
  });

  it('parses PDFs with the pdf parser and passes them through base64 without it', async () => {
    const url = `${site.url}/files/report.pdf`;
    const parsed = (await engine.scrape(url, { ...fresh, formats: ['markdown', 'html'] }, ctx())).document;
    for (const line of DEMO_PDF_TEXT.flat()) assert.ok(parsed.markdown!.includes(line), `missing "${line}"`);
    assert.ok(parsed.html!.includes('<p>Revenue grew by 42 percent in the demo year.</p>'));
    assert.equal(parsed.metadata.title, 'Demo Site Annual Report');
    assert.equal(parsed.metadata.numPages, 2);
    assert.equal(parsed.metadata.contentType, 'application/pdf');
    assert.equal(parsed.metadata.creditsUsed, 2);

    const explicit = (await engine.scrape(url, { ...fresh, parsers: ['pdf'] }, ctx())).document;
    assert.equal(explicit.markdown, parsed.markdown);

    const raw = (await engine.scrape(url, { ...fresh, parsers: [] }, ctx())).document;
    assert.equal(Buffer.from(raw.markdown!, 'base64').subarray(0, 5).toString(), '%PDF-');
    assert.equal(raw.metadata.creditsUsed, 1);
  });

  it('sends custom headers and a mobile user agent', async () => {
    site.resetRequests();
    const echoed = (await engine.scrape(`${site.url}/about`, { ...fresh, headers: { 'X-Demo-Echo': 'hello there' } }, ctx())).document;
    assert.equal(echoed.metadata['webdata:echo'], 'hello there');
    assert.equal(echoed.metadata['webdata:device'], 'desktop');
    assert.match(String(site.requests[0].headers['user-agent']), /WebDataBot/);
    const mobile = (await engine.scrape(`${site.url}/about`, { ...fresh, mobile: true }, ctx())).document;
    assert.equal(mobile.metadata['webdata:device'], 'mobile');
  });

  it('returns the static HTML of JavaScript pages', async () => {
    const { document } = await engine.scrape(`${site.url}/app/dashboard`, { ...fresh, formats: ['markdown', 'rawHtml'] }, ctx());
    assert.equal(document.metadata['webdata:render'], 'javascript');
    assert.ok(!document.markdown!.includes(DEMO_JS_TEXT), 'scripts do not run on the HTTP engine');
    assert.ok(document.rawHtml!.includes('<div id="root"></div>'));
    const catalog = await engine.scrape(`${site.url}/shop/catalog`, { ...fresh, formats: ['links'] }, ctx());
    assert.equal(catalog.document.links!.filter((l) => /\/shop\/item-\d+$/.test(l)).length, 10);
  });
});

describe('HTTP scrape engine cache', () => {
  let site: DemoSite;
  let engine: HttpScrapeEngine;
  let clock = 1_700_000_000_000;
  const hits = (path: string) => site.requests.filter((r) => r.path === path).length;

  before(async () => {
    site = await startDemoSite({ pages: 30 });
    engine = createHttpScrapeEngine({ now: () => clock });
  });
  after(async () => {
    await engine.close();
    await site.close();
  });

  it('answers a repeat from the cache within maxAge (default two days)', async () => {
    const url = `${site.url}/blog/post-1`;
    const first = await engine.scrape(url, {}, ctx());
    assert.equal(first.document.metadata.cacheState, 'miss');
    assert.equal(hits('/blog/post-1'), 1);

    clock += 60_000;
    const c = ctx();
    const second = await engine.scrape(url, {}, c);
    assert.equal(hits('/blog/post-1'), 1, 'no second fetch');
    assert.equal(second.document.metadata.cacheState, 'hit');
    assert.equal(second.document.metadata.cachedAt, new Date(clock - 60_000).toISOString());
    assert.equal(second.document.metadata.scrapeId, c.scrapeId);
    assert.equal(second.document.markdown, first.document.markdown);
    assert.deepEqual(second.discoveredLinks, first.discoveredLinks);

    await engine.scrape(url, { maxAge: 30_000 }, ctx());
    assert.equal(hits('/blog/post-1'), 2, 'older than maxAge: fetched again');
    await engine.scrape(url, { formats: ['html'] }, ctx());
    assert.equal(hits('/blog/post-1'), 3, 'other formats: another cache entry');
  });

  it('serves minAge only from a copy at least that old', async () => {
    const url = `${site.url}/blog/post-2`;
    await assert.rejects(engine.scrape(url, { minAge: 1 }, ctx()), httpError(404, 'SCRAPE_NO_CACHED_DATA'));
    assert.equal(hits('/blog/post-2'), 0, 'minAge never fetches');
    await engine.scrape(url, {}, ctx());
    await assert.rejects(engine.scrape(url, { minAge: 5000 }, ctx()), httpError(404, 'SCRAPE_NO_CACHED_DATA'));
    clock += 5000;
    const old = await engine.scrape(url, { minAge: 5000 }, ctx());
    assert.equal(old.document.metadata.cacheState, 'hit');
    assert.equal(hits('/blog/post-2'), 1);
  });

  it('does not store with storeInCache false, zeroDataRetention, or for error pages', async () => {
    for (const [path, options] of [
      ['/blog/post-3', { storeInCache: false }],
      ['/blog/post-4', { zeroDataRetention: true }],
      ['/blog/missing-post', {}],
    ] as const) {
      await engine.scrape(`${site.url}${path}`, options, ctx());
      await assert.rejects(engine.scrape(`${site.url}${path}`, { minAge: 0 }, ctx()), httpError(404, 'SCRAPE_NO_CACHED_DATA'), path);
    }
    await engine.scrape(`${site.url}/blog/post-4`, { zeroDataRetention: true }, ctx());
    assert.equal(hits('/blog/post-4'), 2, 'zeroDataRetention never reads the cache either');
  });

  it('lockdown answers only from the cache, whatever its age', async () => {
    const url = `${site.url}/about`;
    const requests = await undiciRequests(() =>
      assert.rejects(engine.scrape(url, { lockdown: true }, ctx()), httpError(404, 'SCRAPE_LOCKDOWN_CACHE_MISS')));
    assert.equal(requests, 0);
    await engine.scrape(url, {}, ctx());
    clock += 365 * 24 * 3600 * 1000;
    const locked = await engine.scrape(url, { lockdown: true }, ctx());
    assert.equal(locked.document.metadata.cacheState, 'hit');
    assert.equal(hits('/about'), 1);
  });
});

describe('HTTP scrape engine refusals', () => {
  const engine = createHttpScrapeEngine();
  after(() => engine.close());

  it('refuses non-loopback destinations without any network attempt', async () => {
    for (const url of ['http://example.com/', 'https://external.invalid/page', 'http://10.1.2.3/', 'http://[2001:db8::1]/', 'http://192.168.0.1:8080/x']) {
      let requests = -1;
      const lookups = await dnsLookups(async () => {
        requests = await undiciRequests(() => assert.rejects(engine.scrape(url, {}, ctx()), httpError(403, 'DESTINATION_NOT_ALLOWED')));
      });
      assert.equal(requests, 0, url);
      assert.equal(lookups, 0, `${url}: no DNS query either`);
    }
    await assert.rejects(engine.scrape('ftp://127.0.0.1/file', {}, ctx()), httpError(400, 'BAD_REQUEST'));
    await assert.rejects(engine.scrape('not a url', {}, ctx()), httpError(400, 'BAD_REQUEST'));
  });

  it('answers a clear 400 for options that need a browser or a model', async () => {
    const url = 'http://127.0.0.1:9/never-fetched';
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ formats: ['screenshot'] }, 'BROWSER_REQUIRED', /screenshot.*browser engine, which is not enabled/],
      [{ formats: [{ type: 'screenshot', fullPage: true }] }, 'BROWSER_REQUIRED', /screenshot/],
      [{ formats: ['screenshot@fullPage'] }, 'BROWSER_REQUIRED', /screenshot/],
      [{ actions: [{ type: 'wait', milliseconds: 100 }] }, 'BROWSER_REQUIRED', /actions needs the browser engine/],
      [{ waitFor: 500 }, 'BROWSER_REQUIRED', /waitFor/],
      [{ location: { country: 'DE' } }, 'BROWSER_REQUIRED', /location/],
      [{ profile: { name: 'p' } }, 'BROWSER_REQUIRED', /profile/],
      [{ formats: [{ type: 'json', prompt: 'x' }] }, 'MODEL_REQUIRED', /json.*AI model/],
      [{ formats: ['summary'] }, 'MODEL_REQUIRED', /summary/],
      [{ formats: ['changeTracking'] }, 'MODEL_REQUIRED', /changeTracking/],
      [{ formats: ['nonsense'] }, 'BAD_REQUEST', /unknown format/],
      [{ parsers: ['docx'] }, 'BAD_REQUEST', /unknown parser/],
    ];
    for (const [options, code, message] of cases) {
      const requests = await undiciRequests(() => assert.rejects(engine.scrape(url, options, ctx()), (err: unknown) => {
        httpError(400, code)(err);
        assert.match((err as Error).message, message);
        return true;
      }));
      assert.equal(requests, 0, JSON.stringify(options));
    }
  });

  it('accepts no-op options (blockAds, proxy, waitFor 0, empty actions)', async () => {
    const site = await startDemoSite({ pages: 3 });
    try {
      const out = await engine.scrape(`${site.url}/`, { blockAds: true, proxy: 'stealth', waitFor: 0, actions: [], onlyCleanContent: true }, ctx());
      assert.equal(out.document.metadata.statusCode, 200);
      assert.equal(out.document.metadata.proxyUsed, 'basic');
    } finally {
      await site.close();
    }
  });
});

/** A self-signed certificate from the openssl command line, or null when it is not installed. */
function selfSignedCertificate(): { key: Buffer; cert: Buffer } | null {
  const dir = mkdtempSync(join(tmpdir(), 'scrape-tls-'));
  try {
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
      '-subj', '/CN=localhost', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
    ], { stdio: 'ignore' });
    return { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
  } catch {
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('HTTP scrape engine over TLS', () => {
  const tls = selfSignedCertificate();
  let server: HttpsServer;
  let origin = '';
  const engine = createHttpScrapeEngine({ defaultMaxAgeMs: 0 });

  before(async () => {
    if (!tls) return;
    server = createHttpsServer(tls, (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><head><title>Secure</title></head><body><main><p>over TLS</p></main></body></html>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await engine.close();
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('skips certificate checks by default and enforces them with skipTlsVerification: false', { skip: !tls && 'openssl not installed' }, async () => {
    const ok = await engine.scrape(`${origin}/`, {}, ctx());
    assert.equal(ok.document.metadata.title, 'Secure');
    assert.equal(ok.document.markdown, 'over TLS');
    await assert.rejects(engine.scrape(`${origin}/`, { skipTlsVerification: false }, ctx()), (err: unknown) => {
      httpError(500, 'SCRAPE_ALL_ENGINES_FAILED')(err);
      assert.match((err as Error).message, /self[- ]signed|certificate/i);
      return true;
    });
  });
});

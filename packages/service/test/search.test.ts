// POST /v2/search against the local service: the demo site indexed at startup through the
// HTTP scrape engine, plus a few documents added through the PageIndex hook. Expected result
// sets come from the demo site's manifest and layout, not from the index.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createServiceApp, type ServiceApp } from '../src/app.js';
import type { PageDocument } from '../src/core/scrape.js';
import type { TeamConfig } from '../src/core/teams.js';
import { startDemoSite, type DemoSite, type ManifestEntry } from '../src/demo-site/index.js';
import { buildLayout, type SiteLayout } from '../src/demo-site/layout.js';
import { silentLogger } from '../src/http/logger.js';
import { listen, type ListeningServer } from '../src/http/server.js';
import { createHttpScrapeEngine } from '../src/scrape/index.js';
import { demoSeedUrls, indexSiteInBackground, parseQuery, parseTbs, registerSearchRoutes, searchIndexOf } from '../src/search/index.js';
import { call, team, type ApiAnswer } from './platform-helpers.js';

const PAGES = 30;
const DAY = 86_400_000;

// The service clock: half a day after the newest page date of the site, so qdr:d finds that page.
const probe = buildLayout({ origin: 'http://127.0.0.1:1', pages: PAGES, seed: 1 });
const NEWEST = probe.specs.filter((s) => s.chrome && s.status === 200).map((s) => s.lastmod).sort().at(-1) as string;
const NOW = Date.parse(`${NEWEST}T12:00:00Z`);

const features = (searchEnterprise: Array<'anon' | 'zdr'>): TeamConfig['features'] => ({ ignoreRobotsTxt: false, zeroDataRetention: false, searchEnterprise });
const TEAMS = [
  team('s', { credits: 10_000, features: features(['anon']) }),
  team('z', { credits: 1_000, features: features(['anon', 'zdr']) }),
  team('poor', { credits: 0 }),
  team('few', { credits: 5 }),
];

let site: DemoSite;
let app: ServiceApp;
let server: ListeningServer;
let layout: SiteLayout;
let seeded: ManifestEntry[];

async function search(body: Record<string, unknown>, key = 'key-s'): Promise<ApiAnswer> {
  return call(server.url, 'POST', '/v2/search', { key, body });
}

/** URLs of a search's web results, sorted. */
async function webUrls(query: string, extra: Record<string, unknown> = {}): Promise<string[]> {
  const res = await search({ query, limit: 100, ...extra });
  assert.equal(res.status, 200, res.text);
  return (res.body.data.web as Array<{ url: string }>).map((r) => r.url).sort();
}

/** Canonical URLs of the indexed demo pages that satisfy `pred`, sorted. */
function expected(pred: (e: ManifestEntry) => boolean): string[] {
  return [...new Set(seeded.filter(pred).map((e) => e.canonicalUrl))].sort();
}

const words = (text: string) => text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
const lastmod = (e: ManifestEntry) => layout.get(e.host, new URL(e.canonicalUrl).pathname)?.lastmod;
const dated = (e: ManifestEntry) => e.kind === 'html';

function doc(url: string, title: string, markdown: string, metadata: Record<string, unknown> = {}, rawHtml?: string): PageDocument {
  return {
    markdown,
    ...(rawHtml ? { rawHtml } : {}),
    metadata: { url, sourceURL: url, statusCode: 200, title, description: '', scrapeId: 'test', contentType: 'text/html', ...metadata },
  };
}

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('search', () => {
  before(async () => {
    site = await startDemoSite({ pages: PAGES });
    layout = buildLayout({ origin: site.url, pages: PAGES, seed: 1 });
    app = createServiceApp({ teams: TEAMS, scrapeEngine: createHttpScrapeEngine(), logger: silentLogger, now: () => NOW });
    if (!app.router.list().some((r) => r.pattern === '/v2/search')) registerSearchRoutes(app.router, app.context);
    server = await listen(app.listener);
    const urls = demoSeedUrls(site.manifest);
    seeded = urls.map((u) => site.manifest.get(u) as ManifestEntry);
    await indexSiteInBackground(app.context, { origin: site.url, urls });

    // Pages other teams scraped, added through the context's PageIndex hook.
    const index = app.context.pageIndex;
    assert.ok(index, 'search sets ctx.pageIndex');
    index.index(doc('http://kb.localhost/zephyr/marlin-notes', 'Marlin notes', 'The zephyr quokka swims beside the marlin. Quokka habits are curious.'));
    index.index(doc('http://kb.localhost/zephyr/quokka-facts', 'Quokka facts', 'Every zephyr quokka is small. Quokka quokka quokka.'));
    index.index(doc('http://kb.localhost/other/reverse', 'Reverse order', 'A quokka zephyr and a marlin, in reverse order.'));
    index.index(doc('http://mirror-a.localhost/twin', 'Twin A', 'Xylophone yodel kumquat vortex. Kumquat xylophone nimbus yodel.'));
    index.index(doc('http://mirror-b.localhost/twin', 'Twin B', 'Xylophone yodel kumquat vortex. Kumquat xylophone nimbus yodel.'));
    index.index(doc('http://mirror-c.localhost/half', 'Half twin', 'Kumquat pudding and other desserts.'));
    index.index(doc('https://github.com/acme/wombat-tracker', 'acme/wombat-tracker', 'Tracks every wombat burrow.'));
    index.index(doc('https://arxiv.org/abs/2401.00001', 'A wombat population study', 'We count wombat populations.'));
    index.index(doc('http://kb.localhost/papers/wombat', 'Wombat burrows', 'Burrow depth of the wombat.', {},
      '<html><head><title>Wombat burrows</title><meta name="citation_title" content="Wombat burrows"></head><body><main>Burrow depth of the wombat.</main></body></html>'));
    index.index(doc('http://kb.localhost/files/wombat.pdf', 'Wombat atlas', 'An atlas of wombat territory.', { contentType: 'application/pdf' }));
    index.index(doc('http://kb.localhost/gone', 'Gone', 'zephyr quokka marlin', { statusCode: 404 }));
  });

  after(async () => {
    await Promise.all([server?.close(), app?.close()]);
    await site?.close();
  });

  describe('the demo site index', () => {
    test('every seeded page is indexed once, under its canonical URL', () => {
      const index = searchIndexOf(app.context);
      const urls = new Set(index.entries().map(([, p]) => p.url));
      for (const url of expected(() => true)) assert.ok(urls.has(url), url);
      // Query variants of the featured item collapse into its canonical page.
      assert.ok(seeded.some((e) => e.url.includes('?ref=home')));
      assert.ok(![...urls].some((u) => u.includes('?')));
      assert.ok(!urls.has('http://kb.localhost/gone'), 'failed pages are not indexed');
    });
  });

  describe('operators', () => {
    test('intitle: a word of the title', async () => {
      const counts = new Map<string, number>();
      for (const e of seeded) for (const w of new Set(words(e.title))) counts.set(w, (counts.get(w) ?? 0) + 1);
      const word = [...counts].filter(([w, n]) => n >= 2 && n <= 5 && /^[a-z]+$/.test(w)).sort()[0][0];
      const want = expected((e) => words(e.title).includes(word));
      assert.ok(want.length >= 2);
      assert.deepEqual(await webUrls(`intitle:${word}`), want);
      assert.deepEqual(await webUrls(`intitle:${word.toUpperCase()}`), want, 'case-insensitive');
    });

    test('allintitle: every following word in the title; intitle:"phrase" in order', async () => {
      assert.deepEqual(await webUrls('allintitle: guide part'), expected((e) => words(e.title).includes('guide') && words(e.title).includes('part')));
      assert.deepEqual(await webUrls('intitle:"team note"'), expected((e) => e.title.toLowerCase().startsWith('team note')));
      assert.deepEqual(await webUrls('intitle:"note team"'), []);
    });

    test('-intitle: and -inurl: exclude', async () => {
      assert.deepEqual(
        await webUrls('site:127.0.0.1/blog -intitle:post'),
        expected((e) => e.host === 'main' && e.path.startsWith('/blog') && !words(e.title).includes('post')),
      );
      assert.deepEqual(await webUrls('inurl:shop -inurl:item'), expected((e) => e.path.startsWith('/shop') && !e.path.includes('item')));
    });

    test('site: host (subdomains included), host with port, and path', async () => {
      const alias = expected((e) => e.host === 'alias');
      assert.equal(alias.length, 7);
      assert.deepEqual(await webUrls('site:blog.localhost'), alias);
      assert.deepEqual(await webUrls(`site:${new URL(site.aliasUrl).host}`), alias);
      assert.deepEqual(await webUrls('site:127.0.0.1/docs'), expected((e) => e.host === 'main' && (e.path === '/docs' || e.path.startsWith('/docs/'))));
      assert.deepEqual(await webUrls('site:127.0.0.1/doc'), [], 'a path matches whole segments');
      assert.deepEqual(await webUrls('site:127.0.0.1/docs -site:127.0.0.1/docs/guide-1'),
        expected((e) => e.host === 'main' && (e.path === '/docs' || e.path.startsWith('/docs/')) && !e.path.startsWith('/docs/guide-1')));
    });

    test('inurl: and allinurl:', async () => {
      assert.deepEqual(await webUrls('inurl:item'), expected((e) => e.path.includes('item')));
      assert.deepEqual(await webUrls('allinurl: docs part-2'), expected((e) => e.path.includes('docs') && e.path.includes('part-2')));
    });

    test('filetype:', async () => {
      assert.deepEqual(await webUrls('filetype:pdf'), [...expected((e) => e.kind === 'pdf'), 'http://kb.localhost/files/wombat.pdf'].sort());
      assert.deepEqual(await webUrls('filetype:pdf site:127.0.0.1'), expected((e) => e.kind === 'pdf'));
      const html = await webUrls('filetype:html site:127.0.0.1');
      assert.deepEqual(html, expected((e) => e.host === 'main' && e.kind === 'html'));
    });

    test('free words must all match; "quotes" need the exact phrase; -word excludes', async () => {
      const kb = (p: string) => `http://kb.localhost${p}`;
      assert.deepEqual(await webUrls('quokka marlin'), [kb('/other/reverse'), kb('/zephyr/marlin-notes')]);
      assert.deepEqual(await webUrls('zephyr quokka'), [kb('/other/reverse'), kb('/zephyr/marlin-notes'), kb('/zephyr/quokka-facts')]);
      assert.deepEqual(await webUrls('"zephyr quokka"'), [kb('/zephyr/marlin-notes'), kb('/zephyr/quokka-facts')]);
      assert.deepEqual(await webUrls('quokka -marlin'), [kb('/zephyr/quokka-facts')]);
      assert.deepEqual(await webUrls('quokka -"quokka zephyr"'), [kb('/zephyr/marlin-notes'), kb('/zephyr/quokka-facts')]);
    });

    test('ranking: the title counts most', async () => {
      const res = await search({ query: 'quokka', limit: 3 });
      assert.equal(res.body.data.web[0].url, 'http://kb.localhost/zephyr/quokka-facts');
    });

    test('related: pages like the given one, the page itself left out', async () => {
      const res = await search({ query: 'related:http://mirror-a.localhost/twin', limit: 5 });
      const urls = (res.body.data.web as Array<{ url: string }>).map((r) => r.url);
      assert.equal(urls[0], 'http://mirror-b.localhost/twin');
      assert.equal(urls[1], 'http://mirror-c.localhost/half');
      assert.ok(!urls.includes('http://mirror-a.localhost/twin'));
      // Among demo pages, a blog post is most like another blog post.
      const post = expected((e) => e.path === '/blog/post-3')[0];
      const near = await search({ query: `related:${post} site:127.0.0.1`, limit: 3 });
      assert.ok(!near.body.data.web.some((r: { url: string }) => r.url === post));
      assert.equal(near.body.data.web.length, 3);

      const missing = await search({ query: 'related:http://nowhere.localhost/x' });
      assert.deepEqual(missing.body.data.web, []);
      assert.match(missing.body.warning, /related: http:\/\/nowhere\.localhost\/x is not in the search index/);
    });

    test('imagesize: and larger: on images of known size', async () => {
      const images = async (query: string, extra: Record<string, unknown> = {}) => {
        const res = await search({ query, sources: ['images'], limit: 100, ...extra });
        assert.equal(res.status, 200, res.text);
        return res.body.data.images as Array<{ imageUrl: string; imageWidth?: number; imageHeight?: number; url: string; position: number; title: string }>;
      };
      const posts = seeded.filter((e) => e.host === 'main' && /^\/blog\/post-\d+$/.test(e.path));
      const svg = await images('site:127.0.0.1/blog imagesize:320x200');
      assert.deepEqual(svg.map((i) => i.imageUrl).sort(), posts.map((e) => `${site.url}/images/blog-${e.path.split('-')[1]}.svg`).sort());
      assert.ok(svg.every((i) => i.imageWidth === 320 && i.imageHeight === 200));
      assert.deepEqual(svg.map((i) => i.position), svg.map((_, k) => k + 1));
      assert.match(svg[0].title, /^Illustration for Post \d+/);
      assert.deepEqual((await images('site:127.0.0.1/blog larger:300x150')).map((i) => i.imageUrl), svg.map((i) => i.imageUrl));
      assert.deepEqual(await images('site:127.0.0.1 larger:321x10'), []);
      // The inline data: pixel is 1x1 (read from the PNG header), listed once.
      const pixel = await images('imagesize:1x1');
      assert.equal(pixel.length, 1);
      assert.match(pixel[0].imageUrl, /^data:image\/png;base64,/);
      assert.deepEqual(await images('imagesize:1x1', { ignoreInvalidURLs: true }), []);
      // On web results the size operators keep pages that have such an image.
      assert.deepEqual(await webUrls('site:127.0.0.1 imagesize:320x200'), expected((e) => e.host === 'main' && /^\/(blog\/post|shop\/item)-\d+$/.test(new URL(e.canonicalUrl).pathname)));
    });
  });

  describe('filters', () => {
    test('includeDomains and excludeDomains (subdomains included)', async () => {
      assert.deepEqual(await webUrls('site:localhost', { includeDomains: ['blog.localhost'] }), expected((e) => e.host === 'alias'));
      const all = await webUrls('zephyr', { excludeDomains: ['localhost'] });
      assert.deepEqual(all, []);
      assert.deepEqual(await webUrls('wombat', { excludeDomains: ['github.com', 'kb.localhost'] }), ['https://arxiv.org/abs/2401.00001']);
      const both = await search({ query: 'x', includeDomains: ['a.com'], excludeDomains: ['b.com'] });
      assert.equal(both.status, 400);
    });

    test('categories: github, research, pdf, labelled', async () => {
      const res = await search({ query: 'wombat', categories: ['github', { type: 'research' }], limit: 10 });
      const web = res.body.data.web as Array<{ url: string; category: string }>;
      assert.deepEqual(web.map((r) => [r.url, r.category]).sort(), [
        ['http://kb.localhost/papers/wombat', 'research'],
        ['https://arxiv.org/abs/2401.00001', 'research'],
        ['https://github.com/acme/wombat-tracker', 'github'],
      ]);
      const pdf = await search({ query: 'wombat', categories: ['pdf'] });
      assert.deepEqual(pdf.body.data.web.map((r: { url: string; category: string }) => [r.url, r.category]), [['http://kb.localhost/files/wombat.pdf', 'pdf']]);
      const plain = await search({ query: 'wombat', limit: 10 });
      assert.equal(plain.body.data.web.length, 4);
      assert.ok(plain.body.data.web.every((r: Record<string, unknown>) => !('category' in r)));
    });

    test('tbs qdr: past hour, day, week, month, year (service clock)', async () => {
      const within = (ms: number) => (e: ManifestEntry) => e.host === 'main' && dated(e) && Date.parse(`${lastmod(e)}T00:00:00Z`) >= NOW - ms;
      assert.deepEqual(await webUrls('site:127.0.0.1', { tbs: 'qdr:h' }), []);
      const day = expected(within(DAY));
      assert.ok(day.length >= 1);
      assert.deepEqual(await webUrls('site:127.0.0.1', { tbs: 'qdr:d' }), day);
      assert.deepEqual(await webUrls('site:127.0.0.1', { tbs: 'qdr:w' }), expected(within(7 * DAY)));
      const monthAgo = new Date(NOW);
      monthAgo.setUTCMonth(monthAgo.getUTCMonth() - 1);
      assert.deepEqual(await webUrls('site:127.0.0.1', { tbs: 'qdr:m' }), expected(within(NOW - monthAgo.getTime())));
      const yearAgo = new Date(NOW);
      yearAgo.setUTCFullYear(yearAgo.getUTCFullYear() - 1);
      assert.deepEqual(await webUrls('site:127.0.0.1', { tbs: 'qdr:y' }), expected(within(NOW - yearAgo.getTime())));
    });

    test('tbs cdr range (inclusive days) and sbd:1 (newest first)', async () => {
      const march = (e: ManifestEntry) => e.host === 'main' && dated(e) && (lastmod(e) ?? '').startsWith('2024-03');
      assert.deepEqual(await webUrls('site:127.0.0.1', { tbs: 'cdr:1,cd_min:03/01/2024,cd_max:03/31/2024' }), expected(march));
      const res = await search({ query: 'site:127.0.0.1/blog', tbs: 'sbd:1', limit: 100 });
      const dates = (res.body.data.web as Array<{ url: string }>).map((r) => lastmod(site.manifest.get(r.url) as ManifestEntry) as string);
      assert.deepEqual(dates, [...dates].sort().reverse());
      assert.equal(dates.length, expected((e) => e.host === 'main' && e.path.startsWith('/blog')).length);
    });
  });

  describe('sources, limits, scraping, billing', () => {
    test('news: dated articles (the blog posts) with their publication date', async () => {
      const res = await search({ query: 'site:127.0.0.1', sources: ['news'], limit: 100 });
      assert.deepEqual(Object.keys(res.body.data), ['news']);
      const news = res.body.data.news as Array<{ url: string; date: string; title: string; snippet: string; position: number; imageUrl?: string }>;
      const posts = expected((e) => e.host === 'main' && /^\/blog\/post-\d+$/.test(e.path));
      assert.deepEqual(news.map((n) => n.url).sort(), posts);
      for (const n of news) {
        const entry = site.manifest.get(n.url) as ManifestEntry;
        assert.equal(n.date, lastmod(entry));
        assert.equal(n.title, entry.title);
        assert.equal(n.snippet, entry.description);
        assert.equal(n.imageUrl, `${site.url}/images/og-blog.svg`);
      }
    });

    test('limit applies per source; the default source is web', async () => {
      const res = await search({ query: 'site:127.0.0.1/blog', sources: ['web', 'news', { type: 'images' }], limit: 3 });
      assert.deepEqual(Object.keys(res.body.data).sort(), ['images', 'news', 'web']);
      for (const s of ['web', 'news', 'images']) assert.equal(res.body.data[s].length, 3, s);
      assert.equal(res.body.creditsUsed, 2, '9 results: one block of 10');
      const plain = await search({ query: 'site:127.0.0.1/blog' });
      assert.deepEqual(Object.keys(plain.body.data), ['web']);
      assert.equal(plain.body.data.web.length, 10);
      assert.deepEqual(Object.keys(plain.body.data.web[0]).sort(), ['description', 'title', 'url']);
    });

    test('creditsUsed per started block of 10 results, enterprise rates; activity recorded', async () => {
      const before = app.ledger.remaining('s');
      const res = await search({ query: 'site:127.0.0.1', limit: 25 });
      assert.equal(res.body.data.web.length, 25);
      assert.equal(res.body.creditsUsed, 6);
      assert.equal(app.ledger.remaining('s'), before - 6);
      assert.match(res.body.id, /^[0-9a-f-]{36}$/);
      assert.equal(res.body.warning, null);
      const activity = await call(server.url, 'GET', '/v2/team/activity?endpoint=search&limit=1', { key: 'key-s' });
      assert.equal(activity.body.data[0].id, res.body.id);
      assert.equal(activity.body.data[0].target, 'site:127.0.0.1');

      const anon = await search({ query: 'site:127.0.0.1', limit: 25, enterprise: ['anon'] });
      assert.equal(anon.body.creditsUsed, 6);
      const zdr = await search({ query: 'site:127.0.0.1', limit: 25, enterprise: ['zdr'] }, 'key-z');
      assert.equal(zdr.body.creditsUsed, 30);
      const refused = await search({ query: 'site:127.0.0.1', enterprise: ['zdr'] });
      assert.equal(refused.status, 403);
      assert.match(refused.body.error, /zdr not enabled/);
      const none = await search({ query: 'nothingmatchesthis' });
      assert.equal(none.body.creditsUsed, 0);
      assert.match(none.body.warning, /No results/);
    });

    test('scrapeOptions: results scraped for real, 1 credit each', async () => {
      const before = app.ledger.remaining('s');
      const res = await search({ query: 'site:127.0.0.1/docs intitle:guide', limit: 2, scrapeOptions: { formats: ['markdown', 'links'] } });
      assert.equal(res.status, 200, res.text);
      const web = res.body.data.web as Array<{ url: string; markdown: string; links: string[]; metadata: Record<string, unknown> }>;
      assert.equal(web.length, 2);
      for (const r of web) {
        const entry = site.manifest.get(r.url) as ManifestEntry;
        assert.match(r.markdown, new RegExp(entry.title.split(':')[0]));
        assert.ok(r.links.length > 0);
        assert.equal(r.metadata.statusCode, 200);
        assert.equal(r.metadata.sourceURL, r.url);
        assert.equal(r.metadata.title, entry.title);
      }
      assert.equal(res.body.creditsUsed, 2 + 2);
      assert.equal(app.ledger.remaining('s'), before - 4);
    });

    test('scraping stops at the team credits; a team without credits gets 402', async () => {
      const res = await search({ query: 'site:127.0.0.1/docs', limit: 5, scrapeOptions: { formats: ['markdown'] } }, 'key-few');
      assert.equal(res.status, 200, res.text);
      const scraped = (res.body.data.web as Array<{ markdown?: string }>).filter((r) => r.markdown !== undefined).length;
      assert.equal(scraped, 3, '5 credits: 2 for the results, 3 left for scraping');
      assert.equal(res.body.creditsUsed, 5);
      assert.match(res.body.warning, /2 results were not scraped: not enough credits/);
      const poor = await search({ query: 'site:127.0.0.1' }, 'key-poor');
      assert.equal(poor.status, 402);
    });

    test('country, location and timeout are accepted; bad bodies are 400', async () => {
      const ok = await search({ query: 'site:blog.localhost', country: 'de', location: 'Berlin, Germany', timeout: 5000 });
      assert.equal(ok.status, 200);
      assert.equal(ok.body.data.web.length, 7);
      for (const bad of [{ query: '' }, { query: 'x'.repeat(501) }, { query: 'x', limit: 101 }, { query: 'x', sources: ['video'] }, { query: 'x', tbs: 'qdr:x' }, { query: 'x', extra: 1 }]) {
        const res = await search(bad);
        assert.equal(res.status, 400, JSON.stringify(bad));
        assert.equal(res.body.code, 'BAD_REQUEST');
      }
    });
  });

  describe('the PageIndex hook', () => {
    test('a page scraped again (markdown only) replaces its entry but keeps image sizes and dates', async () => {
      const post = expected((e) => e.path === '/blog/post-4')[0];
      const scraped = await call(server.url, 'POST', '/v2/scrape', { key: 'key-s', body: { url: post, formats: ['markdown'] } });
      assert.equal(scraped.status, 200, scraped.text);
      const page = searchIndexOf(app.context).find(post)?.page;
      assert.ok(page);
      assert.equal(page.publishedAt, lastmod(site.manifest.get(post) as ManifestEntry));
      assert.ok(page.images.some((i) => i.width === 320 && i.height === 200));
      const news = await search({ query: 'site:127.0.0.1/blog/post-4', sources: ['news', 'images'] });
      assert.equal(news.body.data.news.length, 1);
      assert.equal(news.body.data.images[0].imageWidth, 320);
    });
  });

  describe('query and tbs parsing', () => {
    test('operators, negation, quotes and allin*', () => {
      const q = parseQuery('Quokka "exact Phrase" -bad -"worse one" site:Example.com -site:x.org filetype:.PDF inurl:docs intitle:Guide related:http://a/b imagesize:10x20 larger:5X6 note:yes allinurl: foo bar');
      assert.deepEqual(q.terms, ['quokka', 'note:yes']);
      assert.deepEqual(q.phrases, ['exact phrase']);
      assert.deepEqual(q.excludedTerms, ['bad']);
      assert.deepEqual(q.excludedPhrases, ['worse one']);
      assert.deepEqual(q.sites, ['example.com']);
      assert.deepEqual(q.excludedSites, ['x.org']);
      assert.deepEqual(q.filetypes, ['pdf']);
      assert.deepEqual(q.inurl, ['docs', 'foo', 'bar']);
      assert.deepEqual(q.intitle, ['guide']);
      assert.equal(q.related, 'http://a/b');
      assert.deepEqual(q.imagesize, { width: 10, height: 20 });
      assert.deepEqual(q.larger, { width: 5, height: 6 });
      assert.deepEqual(parseQuery('allintitle: a "b c"').intitle, ['a', 'b c']);
      assert.deepEqual(parseQuery('imagesize:big').ignored, ['imagesize:big']);
    });

    test('tbs bounds', () => {
      const now = Date.UTC(2025, 5, 15, 12);
      assert.deepEqual(parseTbs('qdr:d', now), { from: now - DAY, to: now, sortByDate: false });
      assert.deepEqual(parseTbs('cdr:1,cd_min:1/2/2024,cd_max:1/3/2024,sbd:1', now), { from: Date.UTC(2024, 0, 2), to: Date.UTC(2024, 0, 4) - 1, sortByDate: true });
      assert.deepEqual(parseTbs(undefined, now), { sortByDate: false });
    });
  });
});

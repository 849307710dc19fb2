// Demo site revisions: revision 0 is the original site; each revision r ≥ 1 changes exactly three
// pages' body text, removes the r-th blog orphan and adds /blog/new-r-1 and /blog/new-r-2
// (the rule is in src/demo-site/manifest.ts).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { load } from 'cheerio';
import {
  addedPostPath, buildManifest, REVISED_PATHS, startDemoSite, type DemoSite, type ManifestEntry, type SiteManifest,
} from '../src/demo-site/index.js';

const ORIGIN = 'http://127.0.0.1:4000';
const PAGES = 60;
const ORPHANS = ['/blog/post-7', '/blog/post-17'];
const RULE = /revision must be an integer ≥ 0/;

/** The entries without the manifest's lookup function, for deep comparisons. */
const plain = (m: SiteManifest) => ({ ...m, get: undefined });
const byPath = (m: SiteManifest) => new Map(m.entries.filter((e) => e.host === 'main').map((e) => [e.path, e]));
const addedUpTo = (r: number): string[] =>
  Array.from({ length: r }, (_, i) => [addedPostPath(i + 1, 1), addedPostPath(i + 1, 2)]).flat();
const locs = (xml: string): string[] => [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1].replace(/&amp;/g, '&'));

describe('demo site revisions: manifest (no server)', () => {
  const base = buildManifest({ origin: ORIGIN, pages: PAGES, seed: 1 });

  it('revision 0 is the default site', () => {
    assert.equal(base.revision, 0);
    assert.deepEqual(plain(buildManifest({ origin: ORIGIN, pages: PAGES, seed: 1, revision: 0 })), plain(base));
    assert.deepEqual(REVISED_PATHS, ['/blog/post-1', '/docs/guide-1', '/shop/item-1']);
    for (const path of REVISED_PATHS) {
      const entry = base.get(ORIGIN + path)!;
      assert.equal(entry.status, 200, path);
      assert.ok(entry.depth !== null && entry.depth <= 2, path);
      assert.ok(entry.inSitemap, path);
    }
    for (const path of ORPHANS) assert.equal(base.get(ORIGIN + path)!.depth, null, path);
  });

  for (const r of [1, 2, 3]) {
    it(`revision ${r} removes ${Math.min(r, 2)} orphan(s) and adds ${2 * r} posts, nothing else`, () => {
      const m = buildManifest({ origin: ORIGIN, pages: PAGES, seed: 1, revision: r });
      assert.equal(m.revision, r);
      const removed = ORPHANS.slice(0, r);
      const added = addedUpTo(r);
      const before = byPath(base);
      const now = byPath(m);
      assert.deepEqual(
        [...now.keys()].sort(),
        [...before.keys()].filter((p) => !removed.includes(p)).concat(added).sort(),
      );
      for (const path of removed) assert.equal(m.get(ORIGIN + path), undefined, path);
      const addedUrls = new Set(added.map((p) => ORIGIN + p));
      for (const path of added) {
        const e = now.get(path)!;
        assert.equal(e.kind, 'html', path);
        assert.equal(e.status, 200, path);
        assert.equal(e.section, 'blog', path);
        assert.equal(e.inSitemap, true, path);
        assert.equal(e.sitemap, '/sitemaps/blog.xml', path);
        assert.equal(e.depth, null, path);
        assert.deepEqual(e.linkedFrom, [], path);
        assert.ok(e.links.includes(`${ORIGIN}/blog`), path);
      }
      // Every other entry is as at revision 0, except that linkedFrom gains the added posts that
      // link to it and loses the removed orphans that did.
      const removedUrls = new Set(removed.map((p) => ORIGIN + p));
      let gainedAny = false;
      for (const [path, e] of now) {
        if (addedUrls.has(e.url)) continue;
        const old = before.get(path)!;
        assert.deepEqual(
          e.linkedFrom.filter((u) => !addedUrls.has(u)),
          old.linkedFrom.filter((u) => !removedUrls.has(u)),
          path,
        );
        gainedAny ||= e.linkedFrom.some((u) => addedUrls.has(u));
        assert.deepEqual({ ...e, linkedFrom: old.linkedFrom }, old, path);
      }
      assert.ok(gainedAny, 'the added posts link to listed posts');
      assert.deepEqual(
        m.entries.filter((e) => e.host === 'alias'),
        base.entries.filter((e) => e.host === 'alias'),
      );
    });
  }

  it('removes no orphan on a site that has none, and only the existing ones on small sites', () => {
    const small = buildManifest({ origin: ORIGIN, pages: 3, seed: 1, revision: 2 });
    const smallBase = buildManifest({ origin: ORIGIN, pages: 3, seed: 1 });
    assert.equal(small.entries.length, smallBase.entries.length + 4);
    for (const path of REVISED_PATHS) assert.ok(small.get(ORIGIN + path), path);
    const one = buildManifest({ origin: ORIGIN, pages: 30, seed: 1, revision: 3 });
    assert.equal(one.get(`${ORIGIN}/blog/post-7`), undefined);
    assert.equal(one.entries.length, buildManifest({ origin: ORIGIN, pages: 30, seed: 1 }).entries.length - 1 + 6);
  });

  it('refuses a revision that is not an integer ≥ 0', () => {
    for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '1' as unknown as number, null as unknown as number]) {
      assert.throws(() => buildManifest({ origin: ORIGIN, revision: bad }), (err: unknown) => {
        assert.ok(err instanceof TypeError, String(bad));
        assert.match(err.message, RULE);
        assert.match(err.message, /revision/);
        return true;
      });
    }
  });
});

/** GET without keep-alive (a reused socket the server closed would fail on a loaded machine). */
function getRaw(port: number, url: string): Promise<{ status: number; body: Buffer }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: u.pathname + u.search, headers: { host: u.host }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Status and body (gunzipped for .gz) of each URL, a few requests at a time. */
async function snapshot(site: DemoSite, urls: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const queue = [...urls];
  const worker = async () => {
    for (let url = queue.shift(); url !== undefined; url = queue.shift()) {
      const res = await getRaw(site.port, url);
      // Unified to one origin, so sites on different ports compare.
      const bytes = url.endsWith('.gz') ? gunzipSync(res.body) : res.body;
      const body = bytes.toString('latin1').split(site.url).join('ORIGIN').split(site.aliasUrl).join('ALIAS');
      out.set(url.replace(site.url, 'ORIGIN').replace(site.aliasUrl, 'ALIAS'), `${res.status}\n${body}`);
    }
  };
  await Promise.all(Array.from({ length: 6 }, worker));
  return out;
}

/** Every manifest URL of the given manifests plus the site's non-page resources. */
function allUrls(site: DemoSite, manifests: SiteManifest[]): string[] {
  const urls = new Set<string>();
  for (const m of manifests) for (const e of m.entries) urls.add(e.url);
  for (const p of ['/robots.txt', '/sitemap.xml', '/sitemaps/pages.xml', '/sitemaps/blog.xml', '/sitemaps/docs.xml',
    '/sitemaps/shop.xml.gz', '/api/items?page=1', '/api/items?page=2', '/images/blog-1.svg']) urls.add(site.url + p);
  for (const p of ['/robots.txt', '/sitemap.xml']) urls.add(site.aliasUrl + p);
  return [...urls].sort();
}

const differing = (a: Map<string, string>, b: Map<string, string>): string[] =>
  [...new Set([...a.keys(), ...b.keys()])].filter((k) => a.get(k) !== b.get(k)).sort();

describe('demo site revisions: live site', () => {
  let site: DemoSite;
  const snaps: Map<string, string>[] = [];
  const manifests: SiteManifest[] = [];
  let urls: string[] = [];

  before(async () => {
    site = await startDemoSite({ pages: PAGES, seed: 1, slowMs: 5 });
    const expected = [0, 1, 2].map((r) => buildManifest({ origin: site.url, pages: PAGES, seed: 1, revision: r }));
    urls = allUrls(site, expected);
    for (const r of [0, 1, 2]) {
      if (r > 0) site.setRevision(r);
      manifests.push(site.manifest);
      snaps.push(await snapshot(site, urls));
    }
  });
  after(async () => {
    await site.close();
  });

  it('keeps its manifest current and equal to buildManifest at each revision', () => {
    for (const r of [0, 1, 2]) {
      assert.equal(manifests[r].revision, r);
      assert.deepEqual(plain(manifests[r]), plain(buildManifest({ origin: site.url, pages: PAGES, seed: 1, revision: r })));
    }
    assert.equal(site.revision, 2);
    assert.equal(site.manifest, manifests[2]);
  });

  for (const r of [1, 2]) {
    it(`changes exactly the 3 revised pages, the removed orphan, the added posts and the blog sitemap at revision ${r}`, () => {
      const added = [addedPostPath(r, 1), addedPostPath(r, 2)];
      assert.deepEqual(
        differing(snaps[r - 1], snaps[r]),
        [...REVISED_PATHS, ORPHANS[r - 1], ...added, '/sitemaps/blog.xml'].map((p) => `ORIGIN${p}`).sort(),
      );
      for (const path of REVISED_PATHS) {
        const before = snaps[r - 1].get(`ORIGIN${path}`)!;
        const now = snaps[r].get(`ORIGIN${path}`)!;
        assert.ok(now.startsWith('200\n'), path);
        const note = /<p class="revision-note">Revised in revision (\d+): [^<]+<\/p>\n/;
        assert.equal(note.exec(now)?.[1], String(r), path);
        // The note is the only difference from the original page.
        assert.equal(now.replace(note, ''), snaps[0].get(`ORIGIN${path}`), path);
        assert.equal(before.replace(note, ''), snaps[0].get(`ORIGIN${path}`), path);
      }
    });
  }

  it('answers 404 for removed orphans and leaves them out of the blog sitemap, cumulatively', () => {
    for (const r of [1, 2]) {
      const sitemap = snaps[r].get('ORIGIN/sitemaps/blog.xml')!;
      for (const [i, path] of ORPHANS.entries()) {
        const gone = i < r;
        assert.equal(snaps[r].get(`ORIGIN${path}`)!.slice(0, 4), gone ? '404\n' : '200\n', `${path} at ${r}`);
        assert.equal(sitemap.includes(`<loc>ORIGIN${path}</loc>`), !gone, `${path} at ${r}`);
      }
    }
    assert.ok(snaps[0].get('ORIGIN/sitemaps/blog.xml')!.includes('<loc>ORIGIN/blog/post-7</loc>'));
  });

  it('serves the added posts with 200, chrome and the manifest links, listed only in the blog sitemap', () => {
    for (const r of [0, 1, 2]) {
      const added = addedUpTo(r);
      const sitemap = snaps[r].get('ORIGIN/sitemaps/blog.xml')!;
      const listed = locs(sitemap).map((u) => u.replace('ORIGIN', ''));
      const expectedListed = manifests[r].entries
        .filter((e) => e.sitemap === '/sitemaps/blog.xml').map((e) => e.path);
      assert.deepEqual(listed.sort(), expectedListed.sort(), `blog sitemap at ${r}`);
      for (const path of addedUpTo(2)) {
        const snap = snaps[r].get(`ORIGIN${path}`)!;
        if (!added.includes(path)) {
          assert.ok(snap.startsWith('404\n'), `${path} at ${r}`);
          continue;
        }
        assert.ok(snap.startsWith('200\n'), `${path} at ${r}`);
        assert.ok(listed.includes(path), `${path} at ${r}`);
        for (const other of ['/sitemaps/pages.xml', '/sitemaps/docs.xml']) {
          assert.ok(!snaps[r].get(`ORIGIN${other}`)!.includes(path), `${path} in ${other}`);
        }
        const entry = manifests[r].get(site.url + path) as ManifestEntry;
        const $ = load(snap.slice(4).split('ORIGIN').join(site.url));
        assert.equal($('title').text(), entry.title);
        assert.equal($('header.site-header nav.site-nav a').length, 5);
        assert.equal($('footer.site-footer').length, 1);
        const links = new Set<string>();
        $('a[href]').each((_, el) => {
          links.add(new URL($(el).attr('href')!, entry.url).href);
        });
        assert.deepEqual([...links].sort(), [...entry.links].sort(), path);
      }
    }
  });

  it('serves the same site when started at a revision as after setRevision, and back at 0', async () => {
    const other = await startDemoSite({ pages: PAGES, seed: 1, slowMs: 5, revision: 2 });
    try {
      assert.equal(other.revision, 2);
      const otherUrls = urls.map((u) => u.replace(site.url, other.url).replace(site.aliasUrl, other.aliasUrl));
      assert.deepEqual(differing(await snapshot(other, otherUrls), snaps[2]), []);
      other.setRevision(0);
      assert.deepEqual(differing(await snapshot(other, otherUrls), snaps[0]), []);
      assert.equal(other.manifest.revision, 0);
    } finally {
      await other.close();
    }
  });

  it('refuses a bad revision and keeps serving the current one', async () => {
    for (const bad of [-1, 2.5, Number.NaN, '3' as unknown as number]) {
      assert.throws(() => site.setRevision(bad), (err: unknown) => err instanceof TypeError && RULE.test(err.message));
      await assert.rejects(startDemoSite({ revision: bad }), (err: unknown) => err instanceof TypeError && RULE.test(err.message));
    }
    assert.equal(site.revision, 2);
    assert.equal((await getRaw(site.port, `${site.url}${addedPostPath(2, 1)}`)).status, 200);
  });
});

// HTML → document conversion without a network: the reference's main-content rule, metadata edge cases,
// URL resolution, charsets, non-HTML bodies, and the cache's LRU bounds.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { PageDocument } from '../src/core/scrape.js';
import { ScrapeCache } from '../src/scrape/cache.js';
import { convertPage } from '../src/scrape/convert.js';
import { convertHtml, htmlToMarkdown, normalizeOptions, type NormalizedOptions } from '../src/scrape/index.js';

const options = (raw: Record<string, unknown> = {}): NormalizedOptions =>
  normalizeOptions({ formats: ['markdown', 'html', 'links', 'images'], ...raw }, { timeoutMs: 1000, maxAgeMs: 0 });
const PAGE = 'http://127.0.0.1:9/dir/page.html';
const para = (n: number) => `<p>${'Paragraph text with, some commas, and enough words to count as content. '.repeat(3)} (${n})</p>`;

describe('main content by the reference\'s removal list', () => {
  const html = `<!doctype html><html><head><title>T</title></head><body>
    <div class="top"><ul><li><a href="/a">A</a></li><li><a href="/b">B</a></li><li><a href="/c">C</a></li><li><a href="/d">D</a></li></ul></div>
    <div id="content"><h1>Heading</h1>${para(1)}${para(2)}${para(3)}
      <div class="tags"><a href="/t1">t1</a> <a href="/t2">t2</a> <a href="/t3">t3</a></div></div>
    <div class="sidebar"><p>Sidebar words</p></div>
    <footer>Footer words</footer></body></html>`;

  it('removes the listed blocks (.top, .sidebar, footer) and keeps the rest, link lists included', () => {
    const out = convertHtml(html, PAGE, options());
    assert.ok(out.markdown.startsWith('# Heading'), out.markdown);
    assert.ok(out.markdown.includes('(3)'));
    assert.ok(out.markdown.includes('[t3](http://127.0.0.1:9/t3)'), 'a link list is content unless a listed element holds it');
    for (const gone of ['[A]', 'Sidebar words', 'Footer words']) assert.ok(!out.markdown.includes(gone), gone);
    // Links are read before cleaning: every link of the page is still reported.
    assert.equal(out.links.length, 7);
  });

  it('keeps everything with onlyMainContent false', () => {
    const out = convertHtml(html, PAGE, options({ onlyMainContent: false }));
    for (const kept of ['[A]', 't1', 'Sidebar words', 'Footer words']) assert.ok(out.markdown.includes(kept), kept);
  });

  it('removes a <header> wherever it is, an article\'s own too', () => {
    const page = `<body><nav><a href="/x">X</a></nav><article><header><h1>Title</h1></header>${para(1)}<aside>aside</aside></article><article>${para(2)}</article><footer>f</footer></body>`;
    const md = convertHtml(page, PAGE, options()).markdown;
    assert.ok(md.startsWith('Paragraph text') && md.includes('(1)') && md.includes('(2)'), md);
    assert.ok(!md.includes('Title') && !md.includes('aside') && !md.includes('[X]'));
  });

  it('keeps a listed element that holds #main (force-include), and only that one', () => {
    const page = `<body><aside class="sidebar"><h2>Around</h2><div id="main">${para(1)}</div></aside><div class="widget">widget</div><div class="menu"><div class="swoogo-text">vendor</div></div></body>`;
    const md = convertHtml(page, PAGE, options()).markdown;
    assert.ok(md.startsWith('## Around') && md.includes('(1)') && md.includes('vendor'), md);
    assert.ok(!md.includes('widget'), md);
  });

  it('reads an iframe as a link to its source, a caption after its table, content after </body> where it lands', () => {
    const page = `<body>${para(1)}<iframe src="/embed/1">fallback</iframe><table><caption>Cap</caption><tr><td>a</td><td>b</td></tr></table><div>open</body><p>late</p>`;
    const md = convertHtml(page, PAGE, options({ onlyMainContent: false })).markdown;
    assert.ok(md.includes('[iframe](http://127.0.0.1:9/embed/1)') && !md.includes('fallback'), md);
    assert.ok(md.includes('| a | b |\n| --- | --- |\n\nCap'), md);
    assert.ok(md.endsWith('open\n\nlate'), md);
  });

  it('keeps link lists inside a marked <main>', () => {
    const page = `<body><main><h1>Index</h1><ul><li><a href="/1">One</a></li><li><a href="/2">Two</a></li><li><a href="/3">Three</a></li></ul></main></body>`;
    assert.ok(convertHtml(page, PAGE, options()).markdown.includes('- [Three](http://127.0.0.1:9/3)'));
  });
});

describe('conversion details', () => {
  it('resolves against <base href>, srcset and relative paths, and reports images', () => {
    const page = `<html><head><base href="http://127.0.0.1:9/base/"></head><body><main>
      <a href="x">x</a> <a href="../up#frag">up</a> <a href="mailto:a@b.c">mail</a> <a href="#top">top</a>
      <img src="i.png" srcset="i1.png 1x, i2.png 2x" alt="i"></main></body></html>`;
    const out = convertHtml(page, PAGE, options());
    assert.deepEqual(out.links, ['http://127.0.0.1:9/base/x', 'http://127.0.0.1:9/up', 'http://127.0.0.1:9/base/']);
    assert.deepEqual(out.images, ['http://127.0.0.1:9/base/i.png']);
    assert.ok(out.html.includes('srcset="http://127.0.0.1:9/base/i1.png 1x, http://127.0.0.1:9/base/i2.png 2x"'));
    assert.ok(out.html.includes('href="mailto:a@b.c"'));
  });

  it('reads metadata: repeated keys joined, core members not overridable', async () => {
    const page = `<html lang="fr"><head><title> Spaced </title>
      <meta name="author" content="A"><meta name="author" content="B">
      <meta property="article:tag" content="x"><meta name="url" content="http://evil.example/">
      <meta name="statusCode" content="999"><link rel="shortcut icon" href="/fav.ico"></head><body><p>x</p></body></html>`;
    const { document } = await convertPage(
      { status: 200, url: PAGE, headers: {}, contentType: 'text/html', body: Buffer.from(page) },
      { sourceURL: PAGE, scrapeId: 's', signal: new AbortController().signal },
      options(),
    );
    const m = document.metadata;
    assert.equal(m.title, 'Spaced');
    assert.equal(m.language, 'fr');
    assert.equal(m.author, 'A, B');
    assert.equal(m['article:tag'], 'x');
    assert.equal(m.url, PAGE);
    assert.equal(m.statusCode, 200);
    assert.equal(m.favicon, 'http://127.0.0.1:9/fav.ico');
    // The page's own members first, in their order; the service's after, a page's url and statusCode in place.
    assert.deepEqual(Object.keys(m), [
      'title', 'language', 'author', 'article:tag', 'url', 'statusCode', 'favicon',
      'sourceURL', 'contentType', 'scrapeId', 'proxyUsed', 'creditsUsed', 'cacheState',
    ]);
  });

  it('decodes declared charsets', async () => {
    const body = Buffer.from('<html><head><meta charset="iso-8859-1"><title>Caf\xe9</title></head><body><p>cr\xe8me</p></body></html>', 'latin1');
    const { document } = await convertPage(
      { status: 200, url: PAGE, headers: {}, contentType: 'text/html', body },
      { sourceURL: PAGE, scrapeId: 's', signal: new AbortController().signal },
      options(),
    );
    assert.equal(document.metadata.title, 'Café');
    assert.ok(document.markdown!.includes('crème'));
  });

  it('passes text and JSON through, and leaves unknown binaries empty', async () => {
    const run = (contentType: string, body: string) => convertPage(
      { status: 200, url: PAGE, headers: {}, contentType, body: Buffer.from(body) },
      { sourceURL: PAGE, scrapeId: 's', signal: new AbortController().signal },
      options({ formats: ['markdown', 'rawHtml', 'links'] }),
    ).then((c) => c.document as PageDocument);
    assert.equal((await run('text/plain', 'just <text>')).markdown, 'just <text>');
    assert.equal((await run('application/json', '{"a":1}')).rawHtml, '{"a":1}');
    const bin = await run('image/png', '\x89PNG');
    assert.equal(bin.markdown, '');
    assert.deepEqual(bin.links, []);
  });

  it('drops comments, scripts and row-less tables; writes header-less tables with their first row as header', () => {
    const page = `<body><main><!-- secret --><script>var s = 1</script><table></table>
      <table><tr><td>a</td><td>b</td></tr></table><p>done</p></main></body>`;
    const out = convertHtml(page, PAGE, options());
    assert.ok(!out.html.includes('secret') && !out.html.includes('var s'));
    assert.ok(out.markdown.includes('| a | b |\n| --- | --- |'), out.markdown);
    assert.ok(out.markdown.includes('done'));
  });

  it('keeps includeTags matches selector by selector (a nested match twice), then applies onlyMainContent, as the reference', () => {
    const page = `<body><div class="card"><p class="x">inner</p></div><p class="x">outer</p><nav>n</nav></body>`;
    assert.equal(convertHtml(page, PAGE, options({ includeTags: ['.card', '.x'] })).markdown, 'inner\n\ninner\n\nouter');
    assert.equal(convertHtml(page, PAGE, options({ includeTags: ['nav', '.x'] })).markdown, 'inner\n\nouter');
    assert.equal(convertHtml(page, PAGE, options({ includeTags: ['nav'], onlyMainContent: false })).markdown, 'n');
  });

  it('writes compact lists and GFM tables', () => {
    assert.equal(htmlToMarkdown('<ul><li>a</li><li>b</li></ul><ol start="3"><li>c</li></ol>'), '- a\n- b\n\n3. c');
    assert.equal(
      htmlToMarkdown('<table><thead><tr><th>h</th></tr></thead><tbody><tr><td><del>x</del> ~~y~~</td></tr></tbody></table>'),
      // Literal tildes are escaped so that only <del> reads as strikethrough.
      '| h |\n| --- |\n| ~~x~~ \\~\\~y\\~\\~ |',
    );
  });
});

describe('scrape cache bounds', () => {
  const page = (text: string) => ({ document: { markdown: text, metadata: {} } as PageDocument, discoveredLinks: [], storedAt: 0 });

  it('evicts the least recently used entry past maxEntries', () => {
    const cache = new ScrapeCache({ maxEntries: 2, maxBytes: 1e9 });
    cache.set('a', page('a'));
    cache.set('b', page('b'));
    assert.ok(cache.get('a'));
    cache.set('c', page('c'));
    assert.equal(cache.size, 2);
    assert.ok(cache.get('a') && cache.get('c'));
    assert.equal(cache.get('b'), undefined);
  });

  it('evicts by bytes and never holds an entry larger than the budget', () => {
    const cache = new ScrapeCache({ maxEntries: 100, maxBytes: 10_000 });
    cache.set('big', page('x'.repeat(20_000)));
    assert.equal(cache.size, 0);
    for (let i = 0; i < 10; i++) cache.set(`k${i}`, page('y'.repeat(1500)));
    assert.ok(cache.size < 10);
    assert.ok(cache.get('k9'));
  });
});

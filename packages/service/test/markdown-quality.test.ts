// Markdown quality over varied pages (tables, code, nested lists, links, images, headings, quotes,
// escaping, entities, boilerplate): each fixture's markdown must equal its reviewed golden file,
// and the features that matter are asserted on their own, so a regenerated golden file cannot
// hide a regression. `UPDATE_GOLDEN=1` rewrites the golden files (review the diff by eye).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { convertHtml, normalizeOptions } from '../src/scrape/index.js';
import { ConvertPool, defaultThreads, INLINE_BELOW_CHARS, PAGES_PER_THREAD } from '../src/scrape/convert-pool.js';
import { htmlOptions } from '../src/scrape/html.js';

const DIR = new URL('./fixtures/markdown/', import.meta.url);
const PAGE = 'http://127.0.0.1:9/docs/page';
const options = normalizeOptions({ formats: ['markdown'] }, { timeoutMs: 1000, maxAgeMs: 0 });

function markdownOf(name: string): string {
  const html = readFileSync(new URL(`${name}.html`, DIR), 'utf8');
  const markdown = convertHtml(html, PAGE, options).markdown;
  const golden = new URL(`${name}.md`, DIR);
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(golden, `${markdown}\n`);
  assert.equal(markdown, readFileSync(golden, 'utf8').replace(/\n$/, ''), `${name}: differs from ${name}.md`);
  return markdown;
}

const lines = (md: string) => md.split('\n');

describe('markdown quality', () => {
  it('tables: GFM with a separator row, inline formatting, escaped pipes; header-less tables keep their rows', () => {
    const md = markdownOf('tables');
    assert.ok(md.includes('| Version | Status | Ends | Notes |\n| --- | --- | --- | --- |'), md);
    assert.ok(md.includes('| `2.x` | **active** | 2027-06-30 | See [release notes](http://127.0.0.1:9/releases/2) |'), md);
    assert.ok(md.includes('Pipes \\| in cells are escaped'), md);
    assert.ok(md.includes('~~supported~~'), md);
    assert.ok(md.includes('| left | right |') && md.includes('| 1 | 2 |'), md);
    // Every table line has as many cells as its header.
    for (const line of lines(md).filter((l) => l.startsWith('| Version') || l.startsWith('| `'))) {
      assert.equal(line.replace(/\\\|/g, '').split('|').length, 6, line);
    }
    assert.ok(md.endsWith('After the tables.'));
  });

  it('code: fenced blocks with their language, entities decoded, backticks kept inside', () => {
    const md = markdownOf('code');
    assert.ok(md.includes("```ts\nimport { createWorker } from 'webdata-temporal';\n\nconst worker"), md);
    assert.ok(md.includes("if (worker.state !== 'RUNNING' && retries < 3) {\n  await worker.run();\n}\n```"), md);
    assert.ok(md.includes('```bash\n$ export WEBDATA_API_KEY=local-dev-key\n'), md);
    assert.ok(md.includes('`npm install webdata-temporal`'), md);
    assert.ok(md.includes('``a ` b``'), md);
    assert.ok(md.includes('    keeps   its spacing'), md);
    // A fence inside code needs a longer fence around it.
    assert.match(md, /(`{4,}|~{3,})\na fence inside code:\n```\nstill code\n```\n\1/);
  });

  it('lists: nested bullets and numbers indented under their parent, start numbers, paragraphs in items', () => {
    const md = markdownOf('lists');
    assert.ok(md.includes('- Prepare\n  - Install [Node](https://nodejs.org/)\n  - Configure\n    1. Copy `.env.example`\n    2. Set the API key\n- Run'), md);
    assert.match(md, /^5\. Fifth step$/m);
    assert.match(md, /^6\. Sixth step, with a paragraph\.\n\n {3}And a second paragraph\.$/m);
    assert.match(md, /^7\. Seventh step$/m);
    assert.ok(md.includes('- **Bold** item with *emphasis*'), md);
  });

  it('links and images: absolute against <base>, titles kept, linked images, base64 placeholder', () => {
    const md = markdownOf('links-images');
    assert.ok(md.includes('[relative link](http://127.0.0.1:9/docs/guide)'), md);
    assert.ok(md.includes('[absolute path with a title](http://127.0.0.1:9/about "About us")'), md);
    assert.ok(md.includes('[full URL](https://example.com/a?b=1&c=2#part)'), md);
    assert.ok(md.includes('[mail](mailto:team@example.com)'), md);
    assert.ok(md.includes('![Architecture diagram](http://127.0.0.1:9/docs/img/diagram.png "The pipeline")'), md);
    assert.ok(md.includes('[![Thumbnail](http://127.0.0.1:9/thumb.png)](http://127.0.0.1:9/gallery)'), md);
    assert.ok(md.includes('![A photo](http://127.0.0.1:9/docs/photo.jpg)'), md);
    assert.ok(md.includes('![pixel](<Base64-Image-Removed>)'), md);
    assert.ok(!md.includes('data:image'), md);
  });

  it('article: headings, quotes with lists, breaks, rules, escaping and entities; boilerplate gone', () => {
    const md = markdownOf('article');
    assert.ok(md.startsWith('# Durable pipelines & budgets'), md);
    for (const heading of ['## Why durable?', '### Escaping', '#### Entities']) assert.match(md, new RegExp(`^${heading.replace('?', '\\?')}$`, 'm'));
    assert.ok(md.includes('*will*') && md.includes('**The Team**'), md);
    assert.match(md, /client\. {2}\n *A line break above\./);
    assert.ok(md.includes('> Webhooks accelerate, polling guarantees.\n>\n> - signals on job events\n> - a safety poll'), md);
    assert.match(md, /^(---|\* \* \*)$/m);
    // Text that would read as markdown is escaped.
    assert.ok(md.includes('1\\. This line is not a list. \\*Not emphasis\\*, \\_not emphasis\\_, \\[not a link] and # not a heading.'), md);
    assert.match(md, /^\\\+ not a bullet/m);
    assert.ok(md.includes('a \\\\ backslash'), md);
    assert.ok(md.includes('"Quotes", ‘single’, ☃ snowman, 5 × 3 ≤ 20, café.'), md);
    assert.ok(md.includes('— 3\u00a0min read © 2026'), md);
    for (const gone of ['Home', 'Related A', 'Footer text']) assert.ok(!md.includes(gone), gone);
  });

  it('reference: definition lists, details, sub/sup/mark as text; inputs and sidebars dropped, a button\'s and a select\'s text read', () => {
    const md = markdownOf('reference');
    assert.ok(md.startsWith('# Options reference'), md);
    assert.ok(md.includes('`onlyMainContent`\n\nKeep the main content only. Defaults to `true`.'), md);
    assert.ok(md.includes('Advanced\n') && md.includes('Water is H2O and E = mc2'), md);
    assert.ok(md.includes('`Ctrl`+`C`'), md);
    assert.ok(md.includes('Note: highlighted text'), md);
    assert.ok(!md.includes('<') && md.includes('Search Go one'), md);
    for (const gone of ['Sidebar words', 'FAQ']) assert.ok(!md.includes(gone), gone);
  });

  it('a worker thread converts exactly as the event loop does', async () => {
    const pool = new ConvertPool(1);
    try {
      for (const name of ['tables', 'code', 'lists', 'links-images', 'article', 'reference']) {
        const html = readFileSync(new URL(`${name}.html`, DIR), 'utf8').padEnd(4096, ' ');
        const threaded = await pool.convert(html, PAGE, htmlOptions(options));
        const inline = convertHtml(html, PAGE, options);
        assert.equal(threaded.markdown, inline.markdown, name);
        assert.deepEqual([threaded.links, threaded.discovered, threaded.images], [inline.links, inline.discovered, inline.images], name);
      }
      // Discovered links beyond the page's links (canonical, alternate) come back after them.
      const linked = `<link rel="canonical" href="/canon"><link rel="alternate" href="/p/2"><main><a href="/p/2">two</a><a href="/p/3">three</a>${'x'.repeat(4096)}</main>`;
      const threaded = await pool.convert(linked, PAGE, htmlOptions(options));
      assert.deepEqual(threaded.links, ['http://127.0.0.1:9/p/2', 'http://127.0.0.1:9/p/3']);
      assert.deepEqual(threaded.discovered, [...threaded.links, 'http://127.0.0.1:9/canon']);
      await assert.rejects(
        pool.convert(`<main>${'x'.repeat(4096)}</main>`, PAGE, { ...htmlOptions(options), includeTags: ['p[['] }),
        (err: Error & { status?: number }) => err.name === 'HttpError' && err.status === 400,
      );
    } finally {
      await pool.close();
    }
  });

  it('two threads hand results back in the order pages were given, small pages converted inline among them', async () => {
    const pool = new ConvertPool(2);
    try {
      // A large page first, then small ones that convert inline at once: each still waits its turn.
      const pages = [80_000, 10, 5_000, 10, 30_000, 3_000].map((size, i) => `<main><h1>Page ${i}</h1><p>${'w '.repeat(size / 2)}</p></main>`);
      assert.ok(pages.some((html) => html.length < INLINE_BELOW_CHARS) && pages.some((html) => html.length >= INLINE_BELOW_CHARS));
      const order: number[] = [];
      await Promise.all(pages.map((html, i) => pool.convert(html, PAGE, htmlOptions(options)).then((content) => {
        assert.ok(content.markdown.startsWith(`# Page ${i}`), content.markdown.slice(0, 40));
        order.push(i);
      })));
      assert.deepEqual(order, [0, 1, 2, 3, 4, 5]);
    } finally {
      await pool.close();
    }
  });

  it('a thread given several pages at once converts each as the event loop does; one that dies fails the pages it holds, not those waiting', async () => {
    const names = ['tables', 'code', 'lists', 'links-images', 'article', 'reference'];
    const pages = names.map((name) => readFileSync(new URL(`${name}.html`, DIR), 'utf8').padEnd(4096, ' '));
    let pool = new ConvertPool(1);
    try {
      const threaded = await Promise.all(pages.map((html) => pool.convert(html, PAGE, htmlOptions(options))));
      threaded.forEach((content, i) => assert.equal(content.markdown, convertHtml(pages[i], PAGE, options).markdown, names[i]));
    } finally {
      await pool.close();
    }
    pool = new ConvertPool(1);
    try {
      const results = pages.slice(0, PAGES_PER_THREAD + 1).map((html) => pool.convert(html, PAGE, htmlOptions(options)).then(
        (content) => content.markdown,
        (err: Error) => err,
      ));
      // The thread holds the first pages; the last waits in the pool for a free one.
      const { slots } = pool as unknown as { slots: Array<{ worker: { terminate(): Promise<number> } }> };
      assert.equal(slots.length, 1);
      await slots[0].worker.terminate();
      const settled = await Promise.all(results);
      for (const held of settled.slice(0, PAGES_PER_THREAD)) assert.match(String(held), /HTML conversion thread exited/);
      assert.equal(settled[PAGES_PER_THREAD], convertHtml(pages[PAGES_PER_THREAD], PAGE, options).markdown);
    } finally {
      await pool.close();
    }
  });

  it('WEBDATA_CONVERT_THREADS sets the number of threads; anything but a whole number is refused by name', () => {
    assert.equal(defaultThreads({ WEBDATA_CONVERT_THREADS: '0' }), 0);
    assert.equal(defaultThreads({ WEBDATA_CONVERT_THREADS: '3' }), 3);
    assert.ok(defaultThreads({}) >= 0);
    for (const bad of ['-1', '1.5', 'two', '1000']) {
      assert.throws(() => defaultThreads({ WEBDATA_CONVERT_THREADS: bad }), { message: `WEBDATA_CONVERT_THREADS: must be a whole number from 0 to 999, got "${bad}"` });
    }
  });
});

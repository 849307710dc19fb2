// The native pass (native-pass.ts) answers exactly as the tree path (html.ts convertOnTree) or
// not at all: on every markdown fixture, every page of the demo site and every page of the
// main-content corpus, under several option sets, its whole result equals the tree path's. It
// must also answer the pages it was built for (the rich 15 KB page, most demo pages), or it would
// be a no-op. It needs mdream's native engine (see native-mdream.ts); elsewhere it is skipped.
import './native-mdream.js';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { corpusPages } from '../../../test/compat/main-content/corpus.js';
import { startDemoSite, type DemoSite } from '../src/demo-site/index.js';
import { normalizeOptions } from '../src/scrape/index.js';
import { convertOnTree } from '../src/scrape/html.js';
import { markdownEngine } from '../src/scrape/markdown-engine.js';
import { convertNatively } from '../src/scrape/native-pass.js';
import { eachDemoPage } from './demo-site-pages.js';

const DIR = new URL('./fixtures/markdown/', import.meta.url);
const PAGE = 'http://127.0.0.1:9/docs/page';
const opts = (raw: Record<string, unknown>) => normalizeOptions(raw, { timeoutMs: 1000, maxAgeMs: 0 });
const OPTION_SETS = {
  markdown: opts({ formats: ['markdown'] }),
  'markdown, links and images': opts({ formats: ['markdown', 'links', 'images'] }),
  'whole body': opts({ formats: ['markdown'], onlyMainContent: false }),
  'base64 images kept': opts({ formats: ['markdown'], removeBase64Images: false }),
};
const skip = markdownEngine.convertPage ? false : `the native engine is not loaded (mdream ${markdownEngine.name} runs)`;

/** Compares the native pass with the tree path on one page under every option set; returns the sets it answered. */
function compare(name: string, html: string, url = PAGE): string[] {
  const answered: string[] = [];
  for (const [set, options] of Object.entries(OPTION_SETS)) {
    const fast = convertNatively(html, url, options);
    if (!fast) continue;
    assert.deepEqual(fast, convertOnTree(html, url, options), `${name}, ${set}`);
    answered.push(set);
  }
  return answered;
}

const p = (n: number) => `<p>Paragraph ${n} with enough words, and commas, to be read as content by anyone.</p>`;
const page = (body: string, head = '<title>T</title>') => `<!doctype html><html lang="en"><head>${head}</head><body>${p(0)}${body}</body></html>`;

/** name → [html, whether the native pass must answer its markdown]. */
const CASES: Record<string, [string, boolean]> = {
  'entities in URLs, text and attributes': [page('<p><a href="/a?x=1&amp;y=2">q</a> <img src="/i.png?a=1&amp;b=2" alt="a &amp; b"> &copy &hellip; &#8212; &lt;div&gt; &eacute; a & b</p>'), true],
  'upper case, classes split on tabs, duplicate and unquoted attributes': [page('<DIV CLASS="sidebar">S</DIV><div class="x\tad">tab</div><P>Text <a href=/u class=x>u</a> <a href="/one" href="/two">d</a></P>'), true],
  'scripts holding tags, quoted ">", comments': [page('<script>var s = "</scripty><p>no</p>";</script><p title="a > b">x<!-- c --></p><!-- <p>c</p> --><div>d</div><p>x<!-- y -->z</p>'), true],
  'elements the cleaning removes, between runs of text': [page('<h1>sad<nav>n</nav>dle</h1><p>ab<script>x</script>cd <b>e</b><style>s</style><b>f</b> g<meta content=m>h i<noscript>n</noscript>j</p><li>a<aside>x</aside>b</li>'), true],
  'hidden, positioned and non-main html and body': [`<html class="top"><head></head><body class="sidebar" style="position:relative">${p(1)}<p hidden>h</p><div style="display:none">d</div><div style="position:absolute">a</div></body></html>`, true],
  'a removed element holding what would decline': [page('<nav><a href="#top">t</a><svg><path d="M0"/><title>i</title></svg><iframe src="x"></iframe><div class="ad"><table></table></div></nav>'), true],
  'tables, nested tables, lists, code, pre': [page('<table><thead><tr><th>a</th></tr></thead><tr><td><table><tr><td>in</td></tr></table></td></tr></table><ol start=3><li>a<ol><li>b</li></ol></li></ol><pre>\n  two\n\n\nthree</pre><pre><code class="language-js">y &lt; 1</code></pre>'), true],
  'media, forms, custom elements, metadata in the body': [page('<video src="/v.mp4" poster="/p.jpg">f</video><picture><source srcset="/s.webp"><img src="/p.png" srcset="/p2.png 2x" alt="p"></picture><form action="/s"><select><option>1</option></select><input value=v><button>Go</button></form><my-card><h3>Card</h3></my-card><meta name="x" content="y"><style>p{}</style><noscript><img src="/px.gif"></noscript>'), true],
  'frames read as links, renamed elements, inputs dropped': [page('<iframe src="/embed/1" title="t">fallback <a href="/in">in</a></iframe><iframe srcdoc="<p>s</p>"></iframe><iframe class="ad" src="/ad"></iframe><dl><dt>term</dt><dd>def</dd></dl><details><summary>more</summary>hidden</details>H<sub>2</sub>O <sup>3</sup> <mark>m</mark><form><fieldset><legend>L</legend><label>Name <input name="n">a<input>b</label></fieldset></form>'), true],
  'no head, comment after the body': [`<html><body>${p(1)}</body>\n<!-- x -->\n</html>\n`, true],
  'no <html>, unclosed body': [`<body>${p(1)}<div>open`, true],
  // Declined: the one pass or the tree answers.
  'a data: image with removeBase64Images': [page('<img src="data:image/png;base64,AAAA" alt="d">'), false],
  'implied end tags': [page('<ul><li>a<li>b</ul>'), false],
  'a stray </p>': [page('<p>a</p>b</p>c'), false],
  'elements closed out of order': [page('<p>a<b>b<i>c</b>d</i></p>'), false],
  'a self-closed div': [page('<div/><p>after</p>'), false],
  'a comment ended by --!>': [page('<p>x <!-- a--!> z</p>'), false],
  'a character reference mdream does not decode as htmlparser2': [page('<p>a&lsqb;b &ensp; c&#10;d</p>'), false],
  'an entity the prescan does not know in an attribute': [page('<img src="/i.png" alt="&copy; c">'), false],
  'an attribute reference named like an object property': [page('<a href="/x" title="&constructor;">x</a>'), false],
  'text in the head': [`<html><head><title>T</title>stray<div>x</div></head><body>${p(1)}</body></html>`, false],
  'content after </body>': [`<html><head></head><body>${p(1)}</body><p>c</p></html>`, false],
  'a table without rows': [page('<table><thead></thead></table>'), false],
  'a table losing its rows to the removal list': [page('<table><tr class="menu"><td>m</td></tr></table>'), false],
  'a force-included element': [page('<nav><div id="main">m</div></nav>'), false],
  'obsolete elements, drawings, text areas': [page('<center>c</center> <b>f</b><svg><text>s</text></svg><textarea>t</textarea>'), false],
  'a frame whose source does not resolve to http(s)': [page('<iframe src="javascript:void(0)"></iframe>'), false],
  'relative, fragment, empty and unnormalized URLs': [page('<a href="rel">r</a> <a href="#f">f</a> <a href="">e</a> <a href="HTTPS://Example.com">u</a>'), false],
  'a cell outside a table': [page('<li>orphan</li><td>cell</td>'), false],
  'attributes glued together': [page('<a href="/x"title="t">g</a>'), false],
  'text before <html>': [`hello<html><body>${p(1)}</body></html>`, false],
  'a caption, a base': [page('<table><caption>c</caption><tr><td>1</td></tr></table>', '<base href="/b/">'), false],
};

describe('native pass', { skip }, () => {
  let site: DemoSite;
  before(async () => {
    site = await startDemoSite({ pages: 40 });
  });
  after(() => site.close());

  it('equals the tree path on every edge case, and declines what it cannot give mdream as the tree path does', () => {
    for (const [name, [html, answers]] of Object.entries(CASES)) {
      const answered = compare(name, html);
      assert.equal(answered.includes('markdown'), answers, `${name}: answered ${answered.join(', ')}`);
    }
  });

  it('equals the tree path on every markdown fixture, and answers the rich page', () => {
    const files = readdirSync(DIR).filter((f) => f.endsWith('.html')).sort();
    const answered = files.filter((file) => compare(file, readFileSync(new URL(file, DIR), 'utf8')).includes('markdown'));
    assert.ok(answered.includes('rich-15kb.html'), `answered: ${answered.join(', ')}`);
  });

  it('equals the tree path on every page of the main-content corpus', (t) => {
    let answered = 0;
    const pages = corpusPages();
    for (const page of pages) if (compare(page.path, page.html, `http://127.0.0.10:8080${page.path}`).includes('markdown')) answered++;
    t.diagnostic(`answered natively: ${answered} of ${pages.length}`);
    assert.ok(answered >= pages.length / 2, `answered natively: ${answered} of ${pages.length}`);
  });

  it('equals the tree path on every page of the demo site, and answers most', async (t) => {
    let pages = 0;
    let answered = 0;
    await eachDemoPage(site, (url, html) => {
      pages++;
      if (compare(url, html, url).includes('markdown')) answered++;
    });
    assert.ok(pages >= 40, `pages: ${pages}`);
    t.diagnostic(`answered natively: ${answered} of ${pages}`);
    assert.ok(answered >= pages * 0.8, `answered natively: ${answered} of ${pages}`);
  });
});

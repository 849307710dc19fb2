// The one-pass conversion (one-pass.ts) answers exactly as the tree path (html.ts convertOnTree)
// or not at all: on every markdown fixture, every page of the demo site and a set of edge cases,
// under several option sets, its markdown, links, images, discovered URLs and metadata equal the
// tree path's. It must also answer the pages it was built for (every page with a body, the rich
// 15 KB page, the demo site), or it would be a slower no-op.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { normalizeOptions } from '../src/scrape/index.js';
import { convertOnTree, type HtmlContent } from '../src/scrape/html.js';
import { convertInOnePass } from '../src/scrape/one-pass.js';
import { startDemoSite, type DemoSite } from '../src/demo-site/index.js';
import { eachDemoPage } from './demo-site-pages.js';

const DIR = new URL('./fixtures/markdown/', import.meta.url);
const PAGE = 'http://127.0.0.1:9/docs/page';
const opts = (raw: Record<string, unknown>) => normalizeOptions(raw, { timeoutMs: 1000, maxAgeMs: 0 });
const OPTION_SETS = {
  markdown: opts({ formats: ['markdown'] }),
  'markdown, links and images': opts({ formats: ['markdown', 'links', 'images'] }),
  'whole body': opts({ formats: ['markdown'], onlyMainContent: false }),
  'base64 images kept': opts({ formats: ['markdown'], removeBase64Images: false }),
  'links only': opts({ formats: ['links'] }),
};

/** Compares both paths on one page under every option set; returns the sets the one pass answered. */
function compare(name: string, html: string, url = PAGE): string[] {
  const answered: string[] = [];
  for (const [set, options] of Object.entries(OPTION_SETS)) {
    const fast = convertInOnePass(html, url, options);
    if (!fast) continue;
    const tree: HtmlContent = convertOnTree(html, url, options);
    assert.deepEqual(fast, tree, `${name}, ${set}`);
    answered.push(set);
  }
  return answered;
}

const p = (n: number) => `<p>Paragraph ${n} with enough words, and commas, to be read as content by anyone.</p>`;
const page = (body: string, head = '<title>T</title>') => `<!doctype html><html lang="en"><head>${head}</head><body>${body}</body></html>`;

/** name → [html, whether the one pass must answer its markdown]. */
const CASES: Record<string, [string, boolean]> = {
  'main with boilerplate': [page(`<nav><a href="/n">N</a></nav><main><header>Top</header><div class="sidebar">S</div>${p(1)}<div role="navigation">R</div><footer>F</footer></main><footer>Page footer</footer>`), true],
  'header removed inside an article inside main': [page(`<main><article><header><h1>A</h1></header>${p(1)}<footer>by me</footer></article><header>gone</header></main>`), true],
  'main inside an article loses its header': [page(`<article><main><header>kept</header>${p(1)}</main></article>`), true],
  'row-less tables go, tables with rows stay': [page(`<main>${p(1)}<table><caption>none</caption></table><table><tr><td>a</td><td>b</td></tr></table><table><tbody><tr><td><table></table>x</td></tr></tbody></table></main>`), true],
  'a row inside a form control keeps its table': [page(`<main>${p(1)}<table><thead><th>h</th></thead><button><tr><td>in button</td></tr></button></table></main>`), true],
  'form controls and drawings go, odd elements are renamed': [page(`<main>${p(1)}<form><fieldset><legend>L</legend><label>Name <input name="n" value="v"></label><select><option>o</option></select><textarea>t</textarea><button>b</button></fieldset></form><svg><text>svg text</text></svg><dl><dt>term</dt><dd>def</dd></dl><details><summary>more</summary>hidden</details>H<sub>2</sub>O <sup>3</sup> <mark>m</mark></main>`), true],
  'entities, raw characters and whitespace': [page(`<main><p>a &amp;lt; b &lt;c&gt; &quot;q&quot; caf&eacute; &nbsp; x&#x1F600;y &copy;</p><pre><code>if (a &lt; b &amp;&amp; c > d) {\n  return "&amp;";\n}\n</code></pre><p title="a &quot;b&quot; &amp; c">t</p></main>`), true],
  'URLs resolved, data images replaced': [page(`<main>${p(1)}<a href="../up">up</a> <a href="#frag">f</a> <a href="mailto:x@y.z">m</a> <img src="i.png" alt="i"> <img src="data:image/png;base64,AAAA" alt="d"> <img srcset="a.png 1x, data:image/png;base64,BB 2x" src="b.png"><picture><source srcset="s1.webp 1x, s2.webp 2x"><img src="p.png"></picture><video src="v.mp4" poster="p.jpg"></video></main>`), true],
  'base before the body': [page(`<main>${p(1)}<a href="rel">r</a><img src="img.png"></main>`, '<title>T</title><base href="http://other.test/sub/">'), true],
  'comments, templates, scripts and noscript links': [page(`<main>${p(1)}<!-- c --><template><p>tpl</p></template><script>var a = "<p>";</script><style>p{}</style><noscript><a href="/ns">ns</a></noscript><iframe src="/f"></iframe>a<!-- x -->b</main>`), true],
  'void elements, empty attributes, directives': [page(`<main>${p(1)}line<br>two<hr><p hidden>h</p><input disabled><img src="x.png" alt=""><?php echo 1 ?><wbr>end</main>`), true],
  'main without text, one article': [page(`<main> <!-- empty --> </main><article><h1>Art</h1>${p(1)}</article>`), true],
  'role=main on a div, a later main ignored': [page(`<div role="main"><h2>D</h2>${p(1)}</div><main>${p(2)}</main>`), true],
  'article with role=main': [page(`<article role="main"><header>kept</header>${p(1)}</article>`), true],
  'implied end tags and stray closers': [page(`<main><p>one<p>two<ul><li>a<li>b</ul></div></span><table><tr><td>c<td>d</table>${p(1)}</main>`), true],
  'unclosed main at the end': [`<html><body><main><h1>Open</h1>${p(1)}<div>unclosed`, true],
  'title with entities, metadata': [page(`<main>${p(1)}</main>`, '<title> A &amp; B </title><meta name="description" content="d"><meta property="og:title" content="og"><meta name="x" content="1"><meta name="x" content="2"><link rel="icon" href="/fav.ico"><link rel="canonical" href="/canon"><link rel="alternate" hreflang="de" href="/de">'), true],
  'the whole body': [page(`<nav><a href="/n">N</a></nav><div>${p(1)}</div><footer>F</footer>`), true],
  'no landmark': [page(`<div>${p(1)}${p(2)}</div><div class="sidebar">s</div>`), true],
  'two articles': [page(`<article>${p(1)}</article><article>${p(2)}</article>`), true],
  '#main inside a sidebar keeps the sidebar': [page(`<aside class="sidebar"><h2>kept</h2><div><div id="main">${p(1)}</div></div><nav>nested nav goes</nav></aside><div class="widget">w</div>`), true],
  'nested removals, force-included deep': [page(`<div class="menu">m<div class="top">t<span id="main">x</span></div><div class="ad">gone</div></div><div class="side">s<div class="ads">a</div></div>${p(1)}`), true],
  'a table keeps only rows that stay': [page(`${p(1)}<table><caption>c1</caption><tbody class="ad"><tr><td>gone</td></tr></tbody></table><table><caption>c2 <b>bold</b></caption><tr class="menu"><td>gone</td></tr><tr><td>stays</td></tr></table>`), true],
  'captions read after their tables': [page(`${p(1)}<table><caption>Outer</caption><tr><td><table><caption>Inner</caption><tr><td>i</td></tr></table></td></tr></table>`), true],
  'content after </body> lands in the element open there': [`<html><body><main>${p(1)}<footer>Footer text</body><p>After body</p></html><p>After html</p>`, true],
  'iframes read as links, unless listed': [page(`${p(1)}<iframe src="/embed/1" title="t">fallback</iframe><iframe srcdoc="<p>s</p>"></iframe><iframe class="ad" src="/ad"></iframe><div class="sidebar"><iframe id="main" src="/kept"></iframe></div>`), true],
  'buttons and selects read': [page(`${p(1)}<button>Send</button><select><optgroup label="g"><option>One</option></optgroup><option>Two</option></select>`), true],
  'force-include marks only the frames open around it': [page(`${p(1)}<nav>a<header>b<span id="main">m</span></header><footer>c</footer>d</nav><nav>e<footer>f</footer></nav>`), true],
  'a row inside a removed element does not count for the tables around it': [page(`${p(1)}<table><tbody><nav><tr><td>gone</td></tr></nav></tbody></table><table><caption>k</caption><nav>x</nav><tr><td>kept</td></tr></table>`), true],
  'nested tables and removed elements, rows restored in order': [page(`${p(1)}<table><tr><td><table><nav><table><tr><td>in</td></tr></table></nav></table>outer</td></tr></table><table><nav><tr><td>r</td></tr></nav><caption>c</caption></table>`), true],
  'removed elements nested hundreds deep': [page(`${p(1)}${'<nav><header><footer>'.repeat(300)}deep${'</footer></header></nav>'.repeat(300)}${p(2)}${'<div class="menu">'.repeat(200)}<i id="main">kept</i>${'</div>'.repeat(200)}`), true],
  // Declined: the tree path answers (and the comparison checks nothing for them).
  'no body': [`<main>${p(1)}</main>`, false],
  'a base after the content starts': [page(`<main>${p(1)}<base href="http://late.test/"><a href="x">x</a></main>`), false],
  'a first body inside noscript': [`<html><head><noscript><body><p>x</p></body></noscript></head><body><main>${p(1)}</main></body></html>`, false],
  'MathML': [page(`<main>${p(1)}<math><mi>x</mi><mo>=</mo><mn>1</mn></math></main>`), false],
};

describe('one-pass conversion', () => {
  let site: DemoSite;
  before(async () => {
    site = await startDemoSite({ pages: 40 });
  });
  after(() => site.close());

  it('equals the tree path on every edge case, and answers the ones it is built for', () => {
    for (const [name, [html, answers]] of Object.entries(CASES)) {
      const answered = compare(name, html);
      assert.ok(answered.includes('links only'), `${name}: links and metadata need no tree`);
      assert.equal(answered.includes('markdown'), answers, `${name}: answered ${answered.join(', ')}`);
    }
    const html = { ...OPTION_SETS.markdown, formats: new Set([...OPTION_SETS.markdown.formats, 'html']) } as typeof OPTION_SETS.markdown;
    assert.equal(convertInOnePass(CASES['main with boilerplate'][0], PAGE, html), null, 'the html format takes the tree path');
  });

  it('equals the tree path on every markdown fixture', () => {
    const files = readdirSync(DIR).filter((f) => f.endsWith('.html')).sort();
    const answered = files.filter((file) => compare(file, readFileSync(new URL(file, DIR), 'utf8')).includes('markdown'));
    assert.ok(answered.includes('rich-15kb.html') && answered.includes('article.html'), `answered: ${answered.join(', ')}`);
  });

  it('equals the tree path on every page of the demo site', async () => {
    let pages = 0;
    let answered = 0;
    await eachDemoPage(site, (url, html) => {
      pages++;
      if (compare(url, html, url).includes('markdown')) answered++;
    });
    assert.ok(pages >= 40, `pages: ${pages}`);
    assert.ok(answered >= pages * 0.9, `answered in one pass: ${answered} of ${pages}`);
  });
});

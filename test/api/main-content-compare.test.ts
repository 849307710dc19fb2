// The comparison rule of the main-content fidelity check (test/compat/main-content/compare.ts):
// what converters format differently normalizes away; words in order at a ratio >= 0.95,
// headings and link targets decide; and the corpus generator is deterministic and matches
// its committed manifest.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareMarkdown, normalizeMarkdown } from '../compat/main-content/compare.js';
import { buildManifest, GENERATED_SHAPES, generatedPages, PER_SHAPE, readManifest } from '../compat/main-content/corpus.js';

test('normalization: list markers, emphasis, escapes, setext headings, tables and whitespace', () => {
  const turndown = 'Title here\n==========\n\n*   one **bold** item\n*   two\\_words\n\n| a | b |\n| --- | --- |\n| c | d |\n\nA [link](https://x.invalid/a "t")  \n';
  const other = '# Title here\n\n- one bold item\n- two_words\n\n|a|b|\n|:-|-:|\n|c|d|\n\nA [link](https://x.invalid/a)\n';
  const a = normalizeMarkdown(turndown);
  const b = normalizeMarkdown(other);
  assert.deepEqual(a, b);
  assert.deepEqual(a.headings, ['title here']);
  assert.deepEqual(a.links, ['https://x.invalid/a']);
  assert.deepEqual(a.words, ['title', 'here', 'one', 'bold', 'item', 'two', 'words', 'a', 'b', 'c', 'd', 'a', 'link']);
});

test('normalization: code fences keep their text, not the fence; images are not links; the origin is replaced', () => {
  const n = normalizeMarkdown('```js\nconst x = 1;\n```\n\n![alt](http://127.0.0.10:5000/i.png) [home](http://127.0.0.10:5000/)', 'http://127.0.0.10:5000');
  assert.deepEqual(n.words, ['const', 'x', '1', 'alt', 'home']);
  assert.deepEqual(n.links, ['{origin}/']);
});

test('ratio: one word in 40 differs is equal; a missing paragraph is not, with the reason named', () => {
  const words = Array.from({ length: 40 }, (_, i) => `w${i}`);
  const ref = words.join(' ');
  const same = compareMarkdown(ref, [...words.slice(0, 39), 'other'].join(' '));
  assert.equal(same.equal, true);
  assert.ok(same.ratio >= 0.95 && same.ratio < 1);
  const cut = compareMarkdown(ref, words.slice(0, 30).join(' '));
  assert.equal(cut.equal, false);
  assert.match(cut.reasons[0], /^missing text \(10 words: "w30 w31/);
  const empty = compareMarkdown(ref, '');
  assert.deepEqual(empty.reasons, ['empty (reference has text)']);
});

test('words one converter glues and the other spaces count as matched; what is really missing stays missing', () => {
  const filler = Array.from({ length: 30 }, (_, i) => `f${i}`).join(' ');
  const glued = compareMarkdown(`${filler}\n\nOpen detailsBody text`, `${filler}\n\nOpen details\n\nBody text`);
  assert.equal(glued.ratio, 1);
  assert.equal(glued.equal, true);
  const partly = compareMarkdown(`${filler}\n\nJournal meadowUpdate kettlereefmoorSend`, `${filler}\n\nJournal meadow\n\nUpdate kettle`);
  assert.deepEqual(partly.missing, ['kettlereefmoorsend']);
  assert.deepEqual(partly.extra, []);
});

test('glued runs are aligned even when they make more edits than 5% of the words (a form whose labels one converter glues)', () => {
  const ref = 'Your detailsNameEmail  Send me the newsletterYour questionTopicCrawlingScrapingBillingMessage0 characters\n\nBy sending';
  const ours = 'Your details\n\nName Email Send me the newsletter\n\nYour question\n\nTopic Crawling Scraping Billing Message 0 characters\n\nBy sending';
  const c = compareMarkdown(ref, ours);
  assert.equal(c.ratio, 1);
  assert.equal(c.equal, true);
});

test('a root-relative link target is the same as the one resolved against the origin', () => {
  assert.deepEqual(normalizeMarkdown('[iframe](/embed/1) [x](http://h.invalid:1/p)', 'http://h.invalid:1').links, ['{origin}/embed/1', '{origin}/p']);
  assert.deepEqual(normalizeMarkdown('[p](//cdn.invalid/x)').links, ['//cdn.invalid/x']);
});

test('link targets: escapes, angle brackets and titles do not count; links without text are not counted', () => {
  const a = normalizeMarkdown('[a](<javascript:void(0)>) [b](https://x.invalid/p\\#s "T") [](https://x.invalid/empty) <https://x.invalid/auto>');
  assert.deepEqual(a.links, ['https://x.invalid/auto', 'https://x.invalid/p#s', 'javascript:void(0)']);
  assert.deepEqual(normalizeMarkdown('<https://x.invalid/auto>').words, normalizeMarkdown('[https://x.invalid/auto](https://x.invalid/auto)').words);
  assert.deepEqual(normalizeMarkdown('a <table><tr><td>b</td></tr></table> c<br>d').words, ['a', 'b', 'c', 'd']);
});

test('headings and links must be the same even when the words match', () => {
  const body = Array.from({ length: 60 }, (_, i) => `x${i}`).join(' ');
  const h = compareMarkdown(`# Alpha\n\n${body}`, `Alpha\n\n${body}`);
  assert.equal(h.equal, false);
  assert.match(h.reasons.join(';'), /headings differ \(-"alpha"\)/);
  const l = compareMarkdown(`[go](https://a.invalid/) ${body}`, `[go](https://b.invalid/) ${body}`);
  assert.equal(l.equal, false);
  assert.match(l.reasons.join(';'), /links differ \(1 missing, 1 extra/);
});

test('a large, very different page stops the diff early and still reads as not equal', () => {
  const a = Array.from({ length: 6_000 }, (_, i) => `a${i % 997}`).join(' ');
  const b = Array.from({ length: 6_000 }, (_, i) => `b${i % 991}`).join(' ');
  const c = compareMarkdown(a, b);
  assert.equal(c.equal, false);
  assert.ok(c.ratio < 0.95);
});

test('the corpus: deterministic, at least 15 pages of each generated shape, as in the committed manifest', () => {
  const pages = generatedPages();
  assert.equal(pages.length, GENERATED_SHAPES.length * PER_SHAPE);
  for (const shape of GENERATED_SHAPES) assert.ok(pages.filter((p) => p.shape === shape).length >= 15, shape);
  const again = buildManifest(generatedPages());
  assert.equal(buildManifest(pages).generatedHash, again.generatedHash);
  assert.equal(again.generatedHash, readManifest().generatedHash, 'the generator no longer makes the committed corpus: run fidelity.ts --write-manifest after a deliberate change');
});

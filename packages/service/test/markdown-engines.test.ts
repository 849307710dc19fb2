// The markdown engines (markdown-engine.ts) give the same markdown: every fixture of
// fixtures/markdown (tables, code, nested lists, links, images, forms, iframes, malformed HTML, a
// 180 KB page), converted as the service converts a page (with and without onlyMainContent), is
// identical on each engine that loads here and on the JS engine. The native binding loads where
// npm installed its platform package (Node 22 and later), and on Node 20 from the copy that
// scripts/ensure-native-mdream.sh caches (native-mdream.ts); CI's setup fetches it, and in CI the
// native engine must be among those compared. The fallback order is tested with loaders that fail
// as a missing platform package does.
import { nativeBinding } from './native-mdream.js';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { normalizeOptions } from '../src/scrape/index.js';
import { convertHtml } from '../src/scrape/html.js';
import {
  describeMarkdownEngine, loadMarkdownEngine, MARKDOWN_ENGINES, selectMarkdownEngine, type EngineLoaders, type MarkdownEngine,
} from '../src/scrape/markdown-engine.js';

const DIR = new URL('./fixtures/markdown/', import.meta.url);
const PAGE = 'http://127.0.0.1:9/docs/page';
const FIXTURES = readdirSync(DIR).filter((f) => f.endsWith('.html')).sort();
const OPTION_SETS = [
  normalizeOptions({ formats: ['markdown'] }, { timeoutMs: 1000, maxAgeMs: 0 }),
  normalizeOptions({ formats: ['markdown'], onlyMainContent: false }, { timeoutMs: 1000, maxAgeMs: 0 }),
];

async function loadable(): Promise<{ engines: MarkdownEngine[]; absent: string[] }> {
  const engines: MarkdownEngine[] = [];
  const absent: string[] = [];
  for (const name of MARKDOWN_ENGINES) {
    try {
      engines.push(await loadMarkdownEngine(name));
    } catch (err) {
      absent.push(`${name} (${(err as Error).message.split('.')[0]})`);
    }
  }
  return { engines, absent };
}

const missingBinding = () => Promise.reject(new Error('Cannot find native binding. npm has a bug related to optional dependencies.'));

describe('markdown engines', () => {
  it('every engine that loads gives the JS engine\'s markdown on every fixture', async (t) => {
    assert.ok(FIXTURES.length >= 15, `fixtures: ${FIXTURES.join(', ')}`);
    const { engines, absent } = await loadable();
    const js = engines.find((e) => e.name === 'js');
    assert.ok(js, 'the JS engine always loads');
    assert.ok(engines.some((e) => e.name === 'wasm'), 'the WebAssembly build ships inside mdream');
    if (absent.length > 0) t.diagnostic(`not loadable here: ${absent.join(', ')}`);
    if (nativeBinding) t.diagnostic(`native binding from the cache: ${nativeBinding}`);
    if (process.env.CI === 'true') assert.ok(engines.some((e) => e.name === 'native'), `CI compares the native engine too (scripts/ensure-native-mdream.sh): ${absent.join(', ')}`);
    for (const file of FIXTURES) {
      const html = readFileSync(new URL(file, DIR), 'utf8');
      for (const options of OPTION_SETS) {
        const expected: string = convertHtml(html, PAGE, options, js).markdown;
        assert.ok(expected.length > 0, `${file}: empty markdown`);
        for (const engine of engines.filter((e) => e !== js)) {
          assert.equal(convertHtml(html, PAGE, options, engine).markdown, expected, `${file}, ${engine.name}, onlyMainContent ${options.onlyMainContent}`);
        }
      }
    }
  });

  it('the large page converts whole: every section, table and code block is there', async () => {
    const engine = await selectMarkdownEngine();
    const md = convertHtml(readFileSync(new URL('large.html', DIR), 'utf8'), PAGE, OPTION_SETS[0], engine).markdown;
    assert.equal(md.match(/^## \d+\. On /gm)?.length, 120);
    assert.equal(md.match(/^\| Key \| Value \| Note \|$/gm)?.length, 120);
    assert.equal(md.match(/^```ts$/gm)?.length, 120);
    assert.ok(md.includes('H2O at 10') && md.includes('Hidden detail 120, kept as text.') && !md.includes('<dl>'), md.slice(-2000));
  });

  it('without the platform package the WebAssembly build runs; without both, the JS engine', async () => {
    const ok = (name: string): EngineLoaders[keyof EngineLoaders] => () => Promise.resolve((html: string) => `${name}:${html}`);
    const noNative = await selectMarkdownEngine(undefined, { native: missingBinding, wasm: ok('wasm'), js: ok('js') });
    assert.equal(noNative.name, 'wasm');
    assert.equal(noNative.convert('x'), 'wasm:x');
    assert.deepEqual(noNative.skipped, ['native: Cannot find native binding']);

    const onlyJs = await selectMarkdownEngine(undefined, {
      native: missingBinding, wasm: () => Promise.reject(new Error('WebAssembly is not defined')), js: ok('js'),
    });
    assert.equal(onlyJs.name, 'js');
    assert.equal(describeMarkdownEngine(onlyJs).replace(/ \(pinned[^)]*\)/, ''),
      'markdown engine: mdream js (native: Cannot find native binding; wasm: WebAssembly is not defined)');

    const native = await selectMarkdownEngine(undefined, { native: ok('native'), wasm: ok('wasm'), js: ok('js') });
    assert.deepEqual([native.name, native.skipped], ['native', []]);
  });

  it('a pinned engine is the only one tried; an unknown name is refused naming the variable', async () => {
    const pinned = await selectMarkdownEngine('js');
    assert.equal(pinned.name, 'js');
    await assert.rejects(selectMarkdownEngine('native', { native: missingBinding, wasm: missingBinding, js: missingBinding }), /Cannot find native binding/);
    await assert.rejects(selectMarkdownEngine('rust'), /^Error: WEBDATA_MARKDOWN_ENGINE must be one of native, wasm, js, got "rust"$/);
  });
});

// The local service's markdown against the open-source server's on the main-content corpus
// (test/compat/main-content/: 271 pages in 17 shapes), onlyMainContent on and off: at least 95%
// of each shape's pages equal in each mode, by the rule of main-content/compare.ts. The
// reference's answers come from the cache outside the clone (keyed by the server's commit and the
// corpus hash); without it this starts the server with its Go converter and fills the cache
// (about 10 minutes on 2 cores). scripts/test-compat.mjs runs this before it starts its own server.
// The native engine where scripts/ensure-native-mdream.sh cached it (Node 20): the native pass is
// what a Node 22 install runs, so it is the one compared.
import '../../packages/service/test/native-mdream.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeMarkdownEngine } from '../../packages/service/src/scrape/markdown-engine.js';
import { formatTables, measureFidelity } from './main-content/fidelity.js';

const TARGET = 0.95;

test('main content: the local service equals the open-source server on at least 95% of each shape, both modes', { timeout: 40 * 60_000 }, async () => {
  console.log(describeMarkdownEngine());
  const { results, converter } = await measureFidelity();
  console.log(formatTables(results));
  assert.equal(converter, 'go', 'the reference answers were made by the Go converter');
  const failures = results.filter((r) => r.failure).map((r) => `${r.mode} ${r.path}: ${r.failure}`);
  assert.deepEqual(failures, [], 'every page scraped on both servers');
  const below: string[] = [];
  for (const mode of ['on', 'off'] as const) {
    for (const shape of new Set(results.map((r) => r.shape))) {
      const rows = results.filter((r) => r.shape === shape && r.mode === mode);
      const equal = rows.filter((r) => r.comparison?.equal).length;
      if (equal < TARGET * rows.length) below.push(`onlyMainContent ${mode}, ${shape}: ${equal} of ${rows.length} equal`);
    }
  }
  assert.deepEqual(below, [], 'shapes under the target');
});

// The walkthrough parser (doc-blocks.ts): which fenced blocks are shell walkthroughs, where their
// commands and shown lines are, and the directives above them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isExport, parseDocBlocks } from './doc-blocks.js';

const page = [
  '# A page',
  '',
  '```bash',
  'npm test   # no prompt: not a walkthrough',
  '```',
  '',
  '<!-- doctest: numbers vary, output not compared -->',
  '',
  '```',
  'printed by something before',
  '$ export WEBDATA_STORE=.data/store',
  '$ webdata run http://127.0.0.1:3003/ \\',
  "    --include '^/docs'",
  'started docs',
  '',
  '  map       completed · 73 urls',
  '$ webdata status docs',
  '```',
  '',
  '- a list item:',
  '  ```',
  '  $ ls files',
  '  a.pdf',
  '  ```',
  '~~~',
  '$ echo ```',
  '```',
  '~~~',
].join('\n');

test('a block with a `$ ` line is a walkthrough; one without is not', () => {
  const blocks = parseDocBlocks('docs/x.md', page);
  assert.deepEqual(blocks.map((b) => [b.page, b.line]), [['docs/x.md', 9], ['docs/x.md', 21], ['docs/x.md', 25]]);
});

test('commands, continuation lines and the lines shown under each', () => {
  const [block] = parseDocBlocks('docs/x.md', page);
  assert.deepEqual(block.commands, [
    { text: 'export WEBDATA_STORE=.data/store', line: 11, expected: [] },
    { text: "webdata run http://127.0.0.1:3003/ \\\n    --include '^/docs'", line: 12, expected: ['started docs', '  map       completed · 73 urls'] },
    { text: 'webdata status docs', line: 17, expected: [] },
  ]);
});

test('the directive comment just above the fence, split at commas', () => {
  const [first, second] = parseDocBlocks('docs/x.md', page);
  assert.deepEqual(first.directives, ['numbers vary', 'output not compared']);
  assert.deepEqual(second.directives, []);
});

test("a fence in a list item loses the item's indent; a fence of another kind does not close a block", () => {
  const [, item, tilde] = parseDocBlocks('docs/x.md', page);
  assert.deepEqual(item.commands, [{ text: 'ls files', line: 22, expected: ['a.pdf'] }]);
  assert.deepEqual(tilde.commands.map((c) => [c.text, c.expected]), [['echo ```', ['```']]]);
});

test('export commands are the ones later blocks of the page carry', () => {
  const [block] = parseDocBlocks('docs/x.md', page);
  assert.deepEqual(block.commands.map(isExport), [true, false, false]);
});

test('a serving block\'s directive keeps its quoted ready pattern whole', () => {
  const [block] = parseDocBlocks('x.md', ['<!-- doctest: background until "^example worker: " -->', '```', '$ npm run worker', 'example worker: task queue example-backend', '```'].join('\n'));
  assert.deepEqual(block.directives, ['background until "^example worker: "']);
  assert.deepEqual(block.commands.map((c) => c.expected), [['example worker: task queue example-backend']]);
});

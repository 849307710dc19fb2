// The import order of src/ (CONTRIBUTING.md, "Import order") is enforced by the rule
// local/import-order of eslint.config.js. These tests read the rule, its options and its parser
// from the real config (as `npx eslint .` applies them), then prove that it is on for every
// folder and root file of src/, that the order places every one of them, that it refuses each
// import against the order (value and type, every syntax that loads a module) and allows the
// rest, and that src/ as it stands keeps the order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { ESLint, Linter } from 'eslint';

const RULE = 'local/import-order';

interface OrderOptions {
  srcDir: string;
  layers: string[][];
  limits?: Record<string, { only: string[]; typesFrom?: string[] }>;
}

// The repository root: the rule's srcDir is absolute (the real clone, also when this file runs
// from the compiled test tree), so ask ESLint from the folder this file sits in first.
const probe = new ESLint({ cwd: join(import.meta.dirname, '..', '..') });
const probeConfig = await probe.calculateConfigForFile('src/index.ts');
const ruleEntry = probeConfig.rules?.[RULE] as [number, OrderOptions] | undefined;
assert.ok(ruleEntry, `${RULE} is not on for src/index.ts in eslint.config.js`);
const options = ruleEntry[1];
const srcDir = options.srcDir;
const root = dirname(srcDir);
const eslint = new ESLint({ cwd: root });

/** The places of src/ on disk: its folders and its root .ts files. */
const placesOnDisk = readdirSync(srcDir)
  .filter((name) => statSync(join(srcDir, name)).isDirectory() || name.endsWith('.ts'))
  .sort();
const placesInOrder = options.layers.flat();

/** A file of the place, as the probe's file name: a folder's new file, or the root file itself. */
const fileOf = (place: string) => (place.endsWith('.ts') ? join(srcDir, place) : join(srcDir, place, 'import-order-probe.ts'));

/** The specifier from `from`'s probe file to a module of place `to`. */
function specifier(from: string, to: string): string {
  const target = to.endsWith('.ts') ? join(srcDir, to.replace(/\.ts$/, '.js')) : join(srcDir, to, 'target.js');
  const rel = relative(dirname(fileOf(from)), target);
  return rel.startsWith('.') ? rel : `./${rel}`;
}

/** Lints in-memory text at `file` with the real rule, options and parser, without type information. */
const config = await eslint.calculateConfigForFile('src/index.ts');
const linter = new Linter({ cwd: root });
function lint(text: string, file: string): Linter.LintMessage[] {
  return linter.verify(
    text,
    [{
      files: ['**/*.ts'],
      languageOptions: { parser: config.languageOptions.parser, sourceType: 'module' },
      plugins: { local: config.plugins.local },
      rules: { [RULE]: config.rules[RULE] },
    }],
    { filename: file },
  );
}

/**
 * The written order, restated: a place imports any place of a layer below its own; the
 * workflows import values from shared/ and search-attributes.ts only, and types from activities/.
 */
function allowed(from: string, to: string, typeOnly: boolean): boolean {
  if (from === 'workflows') return to === 'shared' || to === 'search-attributes.ts' || (typeOnly && to === 'activities');
  const rank = (place: string) => options.layers.findIndex((layer) => layer.includes(place));
  return rank(to) > rank(from);
}

test('every folder and root file of src/ has a place in the order, and the order names nothing else', () => {
  assert.deepEqual([...placesInOrder].sort(), placesOnDisk);
  assert.equal(new Set(placesInOrder).size, placesInOrder.length, 'a place is in two layers');
});

test('the rule is on, as an error and with the same order, for a file of every place of src/', async () => {
  for (const place of placesOnDisk) {
    const rules = (await eslint.calculateConfigForFile(relative(root, fileOf(place)))).rules ?? {};
    assert.deepEqual(rules[RULE], [2, options], `src/${place}`);
  }
});

test('the imports the order exists to stop are refused, the ones it exists to allow are allowed', () => {
  // Spelled out rather than derived from the layers: what a reader checks first.
  const refused = (from: string, to: string, typeOnly: boolean) => lint(`import ${typeOnly ? 'type ' : ''}{ x } from '${specifier(from, to)}';\n`, fileOf(from)).length > 0;
  for (const up of ['client', 'worker', 'workflows', 'cli', 'index.ts']) {
    assert.ok(refused('activities', up, false) && refused('activities', up, true), `activities → ${up}`);
  }
  assert.ok(!refused('workflows', 'activities', true), 'workflows → activities (import type)');
  assert.ok(refused('workflows', 'activities', false), 'workflows → activities (value)');
  for (const other of ['worker', 'client', 'coordination', 'config', 'webhooks']) {
    assert.ok(refused('workflows', other, false) && refused('workflows', other, true), `workflows → ${other}`);
  }
  for (const up of ['activities', 'client', 'workflows']) assert.ok(refused('coordination', up, false), `coordination → ${up}`);
  for (const down of ['workflows', 'coordination', 'shared']) assert.ok(!refused('client', down, false), `client → ${down}`);
  assert.ok(!refused('activities', 'coordination', false) && !refused('activities', 'shared', false), 'activities → coordination, shared');
});

test('every import from one place to another is refused or allowed as the order says, for values and types', () => {
  for (const from of placesInOrder) {
    const lines: string[] = [];
    const expected: string[] = [];
    for (const to of placesInOrder) {
      if (to === from) continue;
      for (const typeOnly of [false, true]) {
        lines.push(`import ${typeOnly ? 'type ' : ''}{ x${lines.length} } from '${specifier(from, to)}';`);
        expected.push(`${from} → ${to}${typeOnly ? ' (type)' : ''}: ${allowed(from, to, typeOnly) ? 'allowed' : 'refused'}`);
      }
    }
    const messages = lint(`${lines.join('\n')}\n`, fileOf(from));
    assert.ok(messages.every((m) => m.ruleId === RULE), messages.map((m) => m.message).join('\n'));
    const refusedLines = new Set(messages.map((m) => m.line));
    const actual = expected.map((line, i) => line.replace(/(allowed|refused)$/, refusedLines.has(i + 1) ? 'refused' : 'allowed'));
    assert.deepEqual(actual, expected);
  }
});

test('re-exports, dynamic imports and inline type specifiers are checked like imports', () => {
  const fromActivities = lint(
    [
      `export * from '${specifier('activities', 'client')}';`,
      `export { x } from '${specifier('activities', 'client')}';`,
      `export type { X } from '${specifier('activities', 'client')}';`,
      `export const load = () => import('${specifier('activities', 'client')}');`,
      `import 'webdata-temporal/client';`,
    ].join('\n'),
    fileOf('activities'),
  );
  assert.deepEqual(fromActivities.map((m) => m.line), [1, 2, 3, 4, 5]);

  const fromWorkflows = lint(
    [
      // verbatimModuleSyntax keeps `import {}` of an inline-type-only import: the module loads.
      `import { type X } from '${specifier('workflows', 'activities')}';`,
      `export type { Y } from '${specifier('workflows', 'activities')}';`,
      `export const load = () => import('${specifier('workflows', 'activities')}');`,
      `export * from '${specifier('workflows', 'activities')}';`,
    ].join('\n'),
    fileOf('workflows'),
  );
  assert.deepEqual(fromWorkflows.map((m) => m.line), [1, 3, 4]);
  assert.match(fromWorkflows[0]!.message, /may take only types from src\/activities\//);
});

test('a folder that is in no layer is refused, both as the importer and as the imported', () => {
  const inside = lint(`import { x } from '../shared/target.js';\n`, join(srcDir, 'new-folder', 'file.ts'));
  assert.equal(inside.length, 1);
  assert.match(inside[0]!.message, /src\/new-folder\/ is in no layer of the import order/);
  const toIt = lint(`import { x } from '../new-folder/file.js';\n`, fileOf('client'));
  assert.equal(toIt.length, 1);
  assert.match(toIt[0]!.message, /src\/new-folder\/ is in no layer of the import order/);
});

test('src/ as it stands keeps the order', () => {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts')) files.push(path);
    }
  };
  walk(srcDir);
  assert.ok(files.length > 100, `only ${files.length} files under ${srcDir}`);
  const against = files.flatMap((file) => lint(readFileSync(file, 'utf8'), file).map((m) => `${relative(root, file)}:${m.line}: ${m.message}`));
  assert.deepEqual(against, []);
});

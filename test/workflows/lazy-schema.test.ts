// The workflow inputs build a field's schema only when an input has the field (lazy-schema.ts):
// that is exact only for optional fields, which zod skips when absent. These tests hold the
// rule for every field left lazy, and compare the lazy object with the whole one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lazyStrictObject } from '../../src/workflows/lazy-schema.js';
import { parsePipelineInput, pipelineInputOptionalFields, pipelineInputSchema } from '../../src/workflows/input.js';
import { parseDocumentsInputOptionalFields } from '../../src/workflows/parse-documents-input.js';
import { z } from 'zod';

test('every field a workflow input builds lazily is optional in and out (absent: no issue, no output)', () => {
  for (const [name, fields] of [['pipeline', pipelineInputOptionalFields()], ['parseDocuments', parseDocumentsInputOptionalFields()]] as const) {
    for (const [key, schema] of fields) {
      assert.equal(schema._zod.optin, 'optional', `${name}.${key}: optin`);
      assert.equal(schema._zod.optout, 'optional', `${name}.${key}: optout`);
    }
  }
});

test('a lazy strict object validates as the whole one: issues, their order, output and its key order', () => {
  let built = 0;
  const counted = <T>(f: () => T) => () => {
    built++;
    return f();
  };
  const lazy = lazyStrictObject({
    a: counted(() => z.string()),
    b: counted(() => z.number().default(1)),
    c: counted(() => z.strictObject({ d: z.number().min(2) }).optional()),
    e: counted(() => z.boolean().optional()),
  }, ['a', 'b']);
  const inputs = [null, 'x', [], {}, { a: 'x' }, { a: 1, c: { d: 1, x: 1 }, y: 2 }, { e: undefined, a: 'x', c: undefined }, { c: { d: 3 }, a: 'y', e: true }];
  const partial = inputs.map((input) => lazy.schemaFor(input).safeParse(input));
  assert.equal(built, 4, 'c and e built once, when an input had them');
  const whole = inputs.map((input) => lazy.full().safeParse(input));
  assert.deepEqual(partial.map((r) => JSON.stringify(r.success ? r.data : r.error.issues)), whole.map((r) => JSON.stringify(r.success ? r.data : r.error.issues)));
  assert.equal(lazy.schemaFor({ a: 'x' }), lazy.schemaFor({ a: 'y' }), 'one object per set of present keys');
});

test('a pipeline input parses as with the whole schema', () => {
  const input = { url: 'https://example.com/', crawl: { limit: 5 }, budget: { credits: 10 }, polling: {} };
  assert.deepEqual(parsePipelineInput(input, { allowPrivateAddresses: false }), pipelineInputSchema().parse(input));
});

// The tenant of a run: validated on every input that takes it (one line naming the field and the
// rule), turned into the Temporal priority of its starts, and folded into a bounded metrics label.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePipelineInput, PipelineInputError } from '../../src/workflows/input.js';
import { parseParseDocumentsInput, ParseDocumentsInputError } from '../../src/workflows/parse-documents-input.js';
import { priorityOf } from '../../src/shared/tenant.js';
import { TenantLabels } from '../../src/worker/tenant-labels.js';
import { SEARCH_ATTRIBUTES } from '../../src/search-attributes.js';

/** These inputs name public test hosts; the address rule is tested in test/hostile. */
const PUBLIC_ONLY = { allowPrivateAddresses: false };

const RULE = /^invalid pipeline input: tenant: must be 1-64 letters, digits, dot, dash or underscore$/;

test('tenant on PipelineInput: 1-64 of [A-Za-z0-9._-], refused otherwise in one line naming the field', () => {
  for (const tenant of ['a', 'acme-corp', 'Cust_42.eu', 'x'.repeat(64)]) {
    assert.equal(parsePipelineInput({ url: 'http://a.test/', tenant }, PUBLIC_ONLY).tenant, tenant);
  }
  for (const tenant of ['', 'x'.repeat(65), 'acme corp', 'a/b', 'é', 'a\nb']) {
    assert.throws(() => parsePipelineInput({ url: 'http://a.test/', tenant }, PUBLIC_ONLY), (err: unknown) => err instanceof PipelineInputError && RULE.test(err.message), JSON.stringify(tenant));
  }
  assert.throws(() => parsePipelineInput({ url: 'http://a.test/', tenant: 42 }, PUBLIC_ONLY), /invalid pipeline input: tenant: must be a string$/);
  assert.throws(() => parsePipelineInput({ url: 'http://a.test/', priorityKey: 0 }, PUBLIC_ONLY), /priorityKey: must be at least 1/);
  assert.throws(() => parsePipelineInput({ url: 'http://a.test/', priorityKey: 6 }, PUBLIC_ONLY), /priorityKey: must be at most 5/);
});

test('tenant on parseDocuments input: same rule', () => {
  assert.equal(parseParseDocumentsInput({ files: ['/a.pdf'], tenant: 'acme' }).tenant, 'acme');
  assert.throws(() => parseParseDocumentsInput({ files: ['/a.pdf'], tenant: 'a b' }), (err: unknown) => err instanceof ParseDocumentsInputError && /tenant: must be 1-64 letters/.test(err.message));
});

test('priority of a run: fairnessKey = tenant (default `default`), priorityKey when given', () => {
  assert.deepEqual(priorityOf({ tenant: 'acme', priorityKey: 1 }), { fairnessKey: 'acme', priorityKey: 1 });
  assert.deepEqual(priorityOf({}), { fairnessKey: 'default' });
});

test('WebdataTenant is among the search attributes every server registers', () => {
  assert.ok(SEARCH_ATTRIBUTES.some((k) => k.name === 'WebdataTenant' && k.type === 'KEYWORD'));
});

test('metrics label: the first N distinct tenants keep their name, later ones fold into `other`', () => {
  const labels = new TenantLabels(3);
  assert.deepEqual(['a', 'b', undefined, 'd', 'a', 'e', 'b'].map((t) => labels.label(t)), ['a', 'b', 'default', 'other', 'a', 'other', 'b']);
});

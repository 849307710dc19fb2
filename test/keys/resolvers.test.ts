// Key names without a worker: the name's rule (a key is refused, without being repeated), the
// resolvers (environment, file, a function), the book's clients per name and the one line of
// an unknown name, which never holds a key.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { WebDataClient } from 'webdata-client';
import { apiKeyEnvName, apiKeyRefIssue, ApiKeyBook, envApiKeyResolver, fileApiKeyResolver, type ApiKeyResolver } from '../../src/keys/index.js';
import { parseApiKeysSetting } from '../../src/keys/setting.js';
import { apiKeyResolverFromEnv, unknownApiKeyRefIssue } from '../../src/keys/check.js';
import { ClientScope } from '../../src/keys/scoped-client.js';
import { parsePipelineInput, PipelineInputError } from '../../src/workflows/input.js';
import { parseParseDocumentsInput } from '../../src/workflows/parse-documents-input.js';
import { readWorkerSettings } from '../../src/config/worker-env.js';
import type { WorkerOptions } from '@temporalio/worker';
import { createStore } from 'webdata-storage';
import { webDataPlugin } from '../../src/worker/plugin.js';
import { localActivityTenantInterceptor } from '../../src/worker/tenant-labels.js';
import { API_KEY_REF_INTERCEPTOR_PATH } from '../../src/keys/index.js';

const KEY_B = 'fc-0123456789abcdef0123456789abcdef';
const base = new WebDataClient({ apiKey: 'default-key', baseUrl: 'http://127.0.0.1:9' });
const policy = { allowPrivateAddresses: false } as const;

function failureOf(err: unknown): ApplicationFailure {
  assert.ok(err instanceof ApplicationFailure, `an ApplicationFailure, got ${String(err)}`);
  return err;
}

test('a key name is 1-64 letters, digits, dot, dash or underscore, and a key is refused without being repeated', () => {
  for (const name of ['customer-b', 'acme', 'a.b_c-1', 'x'.repeat(64)]) assert.equal(apiKeyRefIssue(name), undefined, name);
  for (const bad of ['', 'has space', 'x'.repeat(65), 'ümlaut', 42]) assert.match(apiKeyRefIssue(bad) ?? '', /^must be the name of a key/, String(bad));
  for (const key of [KEY_B, 'FC-short', `acme-${'a1b2c3d4'.repeat(4)}`, `fc-${'x'.repeat(80)}`]) assert.match(apiKeyRefIssue(key) ?? '', /^looks like an API key/, key);
  let err: unknown;
  try {
    parsePipelineInput({ url: 'https://example.com', apiKeyRef: KEY_B }, policy);
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof PipelineInputError);
  assert.equal(err.issues.length, 1);
  assert.equal(err.issues[0].path, 'apiKeyRef');
  assert.ok(!err.message.includes(KEY_B) && !err.message.includes('\n'), err.message);
  assert.equal(parsePipelineInput({ url: 'https://example.com', apiKeyRef: 'customer-b' }, policy).apiKeyRef, 'customer-b');
  assert.equal(parseParseDocumentsInput({ files: ['/tmp/a.pdf'], apiKeyRef: 'customer-b' }).apiKeyRef, 'customer-b');
  assert.throws(() => parseParseDocumentsInput({ files: ['/tmp/a.pdf'], apiKeyRef: KEY_B }), (e: Error) => /apiKeyRef: looks like an API key/.test(e.message) && !e.message.includes(KEY_B));
});

test('the environment resolver reads WEBDATA_API_KEY_<NAME>, upper-cased, other characters as _', async () => {
  assert.equal(apiKeyEnvName('customer-b.eu'), 'WEBDATA_API_KEY_CUSTOMER_B_EU');
  const resolve = envApiKeyResolver({ WEBDATA_API_KEY_CUSTOMER_B: KEY_B, WEBDATA_API_KEY_EMPTY: ' ' });
  assert.equal(await resolve('customer-b'), KEY_B);
  assert.equal(await resolve('empty'), undefined);
  assert.equal(await resolve('acme'), undefined);
  assert.equal(resolve.hint?.('acme'), 'WEBDATA_API_KEYS=env: set WEBDATA_API_KEY_ACME');
});

test('the file resolver reads a JSON object of names to keys at each call; its errors never quote the file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'webdata-keys-'));
  const path = join(dir, 'keys.json');
  writeFileSync(path, JSON.stringify({ 'customer-b': KEY_B }));
  const resolve = fileApiKeyResolver(path);
  assert.equal(await resolve('customer-b'), KEY_B);
  assert.equal(await resolve('acme'), undefined);
  assert.equal(await resolve('__proto__'), undefined);
  writeFileSync(path, JSON.stringify({ 'customer-b': 'fc-rotated' }));
  assert.equal(await resolve('customer-b'), 'fc-rotated', 'a rotated key is read');
  writeFileSync(path, `{ "customer-b": "${KEY_B}", oops }`);
  await assert.rejects(Promise.resolve(resolve('customer-b')), (e: Error) => e.message === `WEBDATA_API_KEYS=file:${path}: must be a JSON object of names to keys, e.g. { "customer-b": "fc-..." }`);
  await assert.rejects(Promise.resolve(fileApiKeyResolver(join(dir, 'none.json'))('x')), /cannot read the file \(ENOENT\)/);
  assert.equal(resolve.hint?.('acme'), `WEBDATA_API_KEYS=file:${path}: add "acme" to the file`);
});

test('WEBDATA_API_KEYS is env or file:/path, one line otherwise', () => {
  assert.deepEqual(parseApiKeysSetting('env'), { kind: 'env' });
  assert.deepEqual(parseApiKeysSetting('file:/etc/webdata/keys.json'), { kind: 'file', path: '/etc/webdata/keys.json' });
  const env = { WEBDATA_API_URL: 'http://127.0.0.1:3002', WEBDATA_API_KEY: 'k' };
  assert.deepEqual(readWorkerSettings({ ...env, WEBDATA_API_KEYS: 'env' }).apiKeys, { kind: 'env' });
  assert.equal(readWorkerSettings(env).apiKeys, undefined);
  assert.throws(() => readWorkerSettings({ ...env, WEBDATA_API_KEYS: 'vault' }), (e: Error) => e.message === 'WEBDATA_API_KEYS: must be env or file:/absolute/path.json');
});

test('the book gives each name its own team, caches it, and fails an unknown name in one line without a key', async () => {
  let calls = 0;
  const resolve: ApiKeyResolver = async (ref) => {
    calls += 1;
    return ref === 'customer-b' ? KEY_B : undefined;
  };
  const book = new ApiKeyBook({ client: base, resolve });
  const b = await book.clientFor('customer-b');
  assert.notEqual(b.teamId, base.teamId);
  assert.equal(b.teamId, new WebDataClient({ apiKey: KEY_B, baseUrl: 'http://127.0.0.1:9' }).teamId);
  assert.equal(await book.clientFor('customer-b'), b, 'cached');
  assert.equal(calls, 1);
  const unknown = failureOf(await book.clientFor('acme').catch((e: unknown) => e));
  assert.equal(unknown.message, 'apiKeyRef: no key named "acme" (the worker\'s apiKeys resolver knows no such name)');
  assert.equal(unknown.type, 'api_key_ref');
  assert.equal(unknown.nonRetryable, true);

  const env = new ApiKeyBook({ client: base, resolve: envApiKeyResolver({}) });
  assert.equal(failureOf(await env.clientFor('acme').catch((e: unknown) => e)).message, 'apiKeyRef: no key named "acme" (WEBDATA_API_KEYS=env: set WEBDATA_API_KEY_ACME)');
  const none = new ApiKeyBook({ client: base });
  assert.equal(failureOf(await none.clientFor('acme').catch((e: unknown) => e)).message, 'apiKeyRef: no key named "acme" (this worker resolves no key names: set WEBDATA_API_KEYS or pass apiKeys)');

  // A resolver's own failure is retried, its message kept with a bearer token cut.
  const broken = new ApiKeyBook({ client: base, resolve: () => { throw new Error(`vault said: Bearer ${KEY_B}`); } });
  const failed = failureOf(await broken.clientFor('customer-b').catch((e: unknown) => e));
  assert.equal(failed.type, 'api_key_resolver');
  assert.equal(failed.nonRetryable, false);
  assert.ok(!failed.message.includes(KEY_B), failed.message);
});

test('a rotated key gets a new client after the time to live; the same key keeps its client', async () => {
  let key = KEY_B;
  const book = new ApiKeyBook({ client: base, resolve: () => key, ttlMs: 0 });
  const first = await book.clientFor('customer-b');
  assert.equal(await book.clientFor('customer-b'), first);
  key = 'fc-rotated';
  const second = await book.clientFor('customer-b');
  assert.notEqual(second.teamId, first.teamId);
  assert.throws(() => base.withApiKey(' '), (e: Error) => e.message === 'client options: apiKey: is required');
});

test('the scoped client delegates each call to the client of its scope, the default outside', async () => {
  const scope = new ClientScope();
  const client = scope.delegate(base);
  const other = base.withApiKey(KEY_B);
  assert.equal(client.teamId, base.teamId);
  assert.ok(client instanceof WebDataClient);
  const inside = await scope.run(other, async () => {
    await Promise.resolve();
    return { team: client.teamId, origin: client.origin };
  });
  assert.deepEqual(inside, { team: other.teamId, origin: base.origin });
  assert.equal(client.teamId, base.teamId);
});

test('a client with the worker\'s setting refuses an unknown name in the worker\'s words, and a malformed setting in one line', async () => {
  const resolve = apiKeyResolverFromEnv({ WEBDATA_API_KEYS: 'env', WEBDATA_API_KEY_CUSTOMER_B: KEY_B });
  assert.ok(resolve);
  assert.equal(await unknownApiKeyRefIssue('customer-b', resolve), undefined);
  assert.equal(await unknownApiKeyRefIssue('acme', resolve), 'no key named "acme" (WEBDATA_API_KEYS=env: set WEBDATA_API_KEY_ACME)');
  assert.equal(apiKeyResolverFromEnv({}), undefined);
  assert.throws(() => apiKeyResolverFromEnv({ WEBDATA_API_KEYS: 'file:relative.json' }), /^Error: WEBDATA_API_KEYS: must be env or file:\/absolute\/path.json$/);
});

test('the plugin adds the key-name interceptors: the workflow module (unless the bundle is prebuilt), the activity one and the local activities\' tenant one', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'webdata-keys-store-'));
  const store = await createStore(dir);
  try {
    // metrics off: the metrics would install Temporal's Runtime, which the stack's file installs its own way.
    const plugin = webDataPlugin({ client: base, store }, { metrics: false, apiKeys: envApiKeyResolver({}) });
    const built = await plugin.configureWorker!({ taskQueue: 'keys' } as WorkerOptions);
    assert.ok(built.interceptors?.workflowModules?.includes(API_KEY_REF_INTERCEPTOR_PATH));
    assert.deepEqual(built.interceptors?.activity?.slice(1), [localActivityTenantInterceptor]);
    const prebuilt = await plugin.configureWorker!({ taskQueue: 'keys', workflowBundle: { codePath: '/tmp/bundle.js' } } as WorkerOptions);
    assert.equal(prebuilt.interceptors?.workflowModules, undefined, 'a prebuilt bundle carries its own modules');
    assert.equal(prebuilt.interceptors?.activity?.length, 2);
  } finally {
    await store.close();
  }
});

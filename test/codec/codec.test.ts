// The payload codec alone: AES-256-GCM round trips, key rotation, what it refuses (unknown key
// id, altered bytes) and what it leaves alone (payloads written in clear), the protobuf bytes it
// encrypts (the same as @temporalio/proto writes), and the one setting's errors: one line each,
// never a key's text.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import proto from '@temporalio/proto';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import {
  EncryptionCodec, ENCODING, KEY_ID_METADATA, PayloadDecryptionError, PayloadKeysError, decodePayloadProto, encodePayloadProto,
  newKeyEntry, parsePayloadKeys, payloadKeysFromEnv, dataConverterFromEnv, encryptsPayloads, FAILURE_CONVERTER_PATH, startCodecServer,
} from '../../src/codec/index.js';
import { readWorkerSettings, WorkerSettingsError } from '../../src/config/worker-env.js';

// Fixed test keys (32 bytes each, base64): never used outside the tests.
const KEY_A = Buffer.alloc(32, 0xa1).toString('base64');
const KEY_B = Buffer.alloc(32, 0xb2).toString('base64');
const text = (p: Payload, key: string) => new TextDecoder().decode(p.metadata?.[key] ?? new Uint8Array());
const SECRET_INPUT = { url: 'https://customer.example/very-private-path', include: ['^/secret-area/'] };

describe('payload codec', () => {
  test('round trip: the whole payload (metadata and data) is encrypted and comes back equal', async () => {
    const codec = new EncryptionCodec(parsePayloadKeys(`a=${KEY_A}`));
    const plain = defaultPayloadConverter.toPayload(SECRET_INPUT);
    const [sealed] = await codec.encode([plain]);
    assert.equal(text(sealed, 'encoding'), ENCODING);
    assert.equal(text(sealed, KEY_ID_METADATA), 'a');
    assert.deepEqual(Object.keys(sealed.metadata ?? {}).sort(), ['encoding', KEY_ID_METADATA].sort());
    const bytes = Buffer.from(sealed.data ?? []);
    assert.ok(!bytes.includes('very-private-path') && !bytes.includes('json/plain'), 'neither data nor metadata in clear');
    const [back] = await codec.decode([sealed]);
    assert.deepEqual(defaultPayloadConverter.fromPayload(back), SECRET_INPUT);
    assert.equal(text(back, 'encoding'), 'json/plain');
  });

  test('two encodings of one payload differ (a fresh IV each)', async () => {
    const codec = new EncryptionCodec(parsePayloadKeys(`a=${KEY_A}`));
    const plain = defaultPayloadConverter.toPayload('same');
    const [x, y] = await codec.encode([plain, plain]);
    assert.notDeepEqual(Buffer.from(x.data ?? []), Buffer.from(y.data ?? []));
  });

  test('rotation: a payload of the old key reads after a new key is put first; new payloads use the new id', async () => {
    const before = new EncryptionCodec(parsePayloadKeys(`old=${KEY_A}`));
    const [old] = await before.encode([defaultPayloadConverter.toPayload('written before')]);
    const after = new EncryptionCodec(parsePayloadKeys(`new=${KEY_B}, old=${KEY_A}`));
    assert.equal(defaultPayloadConverter.fromPayload((await after.decode([old]))[0]), 'written before');
    const [fresh] = await after.encode([defaultPayloadConverter.toPayload('written after')]);
    assert.equal(text(fresh, KEY_ID_METADATA), 'new');
  });

  test('an unknown key id fails in one line naming the id, never a key', async () => {
    const [sealed] = await new EncryptionCodec(parsePayloadKeys(`gone=${KEY_A}`)).encode([defaultPayloadConverter.toPayload(1)]);
    const reader = new EncryptionCodec(parsePayloadKeys(`other=${KEY_B}`));
    await assert.rejects(reader.decode([sealed]), (err: Error) => {
      assert.ok(err instanceof PayloadDecryptionError);
      assert.match(err.message, /key id "gone"/);
      assert.doesNotMatch(err.message, /\n/);
      assert.ok(!err.message.includes(KEY_A) && !err.message.includes(KEY_B));
      return true;
    });
  });

  test('altered ciphertext, tag or key id is refused', async () => {
    const codec = new EncryptionCodec(parsePayloadKeys(`a=${KEY_A},b=${KEY_B}`));
    const [sealed] = await codec.encode([defaultPayloadConverter.toPayload('untouched')]);
    for (const at of [12, (sealed.data?.length ?? 0) - 1]) {
      const data = Uint8Array.from(sealed.data ?? []);
      data[at] ^= 1;
      await assert.rejects(codec.decode([{ ...sealed, data }]), /failed authentication/);
    }
    const relabelled = { ...sealed, metadata: { ...sealed.metadata, [KEY_ID_METADATA]: new TextEncoder().encode('b') } };
    await assert.rejects(codec.decode([relabelled]), /failed authentication/);
  });

  test('payloads written in clear (older runs) pass through decode unchanged', async () => {
    const codec = new EncryptionCodec(parsePayloadKeys(`a=${KEY_A}`));
    const plain = [defaultPayloadConverter.toPayload({ x: 1 }), defaultPayloadConverter.toPayload(undefined), { metadata: { encoding: new TextEncoder().encode('binary/null') } }];
    assert.deepEqual(await codec.decode(plain), plain);
  });

  test('the encrypted bytes are temporal.api.common.v1.Payload as @temporalio/proto writes and reads them', () => {
    const Payload = proto.temporal.api.common.v1.Payload;
    const samples: Payload[] = [
      defaultPayloadConverter.toPayload({ url: 'https://a.example/ü', n: 3 }),
      defaultPayloadConverter.toPayload(undefined),
      { metadata: { encoding: new TextEncoder().encode('binary/plain'), empty: new Uint8Array() }, data: new Uint8Array(300).fill(7) },
    ];
    for (const p of samples) {
      const ours = encodePayloadProto(p);
      assert.deepEqual(Buffer.from(ours), Buffer.from(Payload.encode(p).finish()));
      const theirs = Payload.decode(ours);
      const back = decodePayloadProto(Payload.encode(p).finish());
      assert.deepEqual(Object.keys(back.metadata ?? {}), Object.keys(theirs.metadata));
      for (const k of Object.keys(theirs.metadata)) assert.deepEqual(Buffer.from(back.metadata?.[k] ?? []), Buffer.from(theirs.metadata[k]));
      assert.deepEqual(Buffer.from(back.data ?? []), Buffer.from(theirs.data));
    }
  });

  test('the keyring prints and serialises its ids only', () => {
    const keyring = parsePayloadKeys(`a=${KEY_A},b=${KEY_B}`);
    for (const shown of [inspect(keyring), JSON.stringify(keyring), inspect(new EncryptionCodec(keyring), { depth: 5 })]) {
      assert.ok(!shown.includes(KEY_A) && !shown.includes(KEY_B) && !shown.includes(Buffer.alloc(32, 0xa1).toString('hex')), shown);
    }
    assert.deepEqual(JSON.parse(JSON.stringify(keyring)), { current: 'a', ids: ['a', 'b'] });
  });

  test('newKeyEntry: a fresh id=base64 entry that the setting accepts', () => {
    const entry = newKeyEntry(undefined, new Date('2026-11-29T12:00:00Z'));
    assert.match(entry, /^key-20261129-[0-9a-f]{4}=[A-Za-z0-9+/]{43}=$/);
    assert.equal(parsePayloadKeys(entry).current.id, entry.split('=')[0]);
    assert.match(newKeyEntry('tenant-keys.2027'), /^tenant-keys\.2027=/);
  });
});

describe('payload keys setting', () => {
  const oneLineWithoutKeys = (fn: () => unknown, pattern: RegExp) => assert.throws(fn, (err: Error) => {
    assert.ok(err instanceof PayloadKeysError, String(err));
    assert.match(err.message, pattern);
    assert.doesNotMatch(err.message, /\n/);
    for (const k of [KEY_A, KEY_B, KEY_A.slice(0, 20), KEY_B.slice(0, 20)]) assert.ok(!err.message.includes(k), err.message);
    return true;
  });

  test('unset or empty: encryption off', () => {
    assert.equal(payloadKeysFromEnv({}), undefined);
    assert.equal(dataConverterFromEnv({ WEBDATA_PAYLOAD_KEYS: ' ' }), undefined);
  });

  test('malformed entries: one line naming the variable, the entry and the rule', () => {
    // A key without its id: the key's own `=` makes most of it look like an id, which is not echoed either.
    oneLineWithoutKeys(() => payloadKeysFromEnv({ WEBDATA_PAYLOAD_KEYS: KEY_A }), /^WEBDATA_PAYLOAD_KEYS: entry 1: the key \(after the first =\) must be/);
    oneLineWithoutKeys(() => payloadKeysFromEnv({ WEBDATA_PAYLOAD_KEYS: `a=${KEY_A},${KEY_B.slice(0, -1)}` }), /^WEBDATA_PAYLOAD_KEYS: entry 2: must be id=key/);
    oneLineWithoutKeys(() => payloadKeysFromEnv({ WEBDATA_PAYLOAD_KEYS: `a=${KEY_A},b=${KEY_B.slice(0, 30)}` }), /^WEBDATA_PAYLOAD_KEYS: entry 2: the key \(after the first =\) must be 32 bytes in base64/);
    oneLineWithoutKeys(() => payloadKeysFromEnv({ WEBDATA_PAYLOAD_KEYS: `a=${Buffer.alloc(16, 1).toString('base64')}` }), /entry 1: the key \(after the first =\) must be 32 bytes/);
    oneLineWithoutKeys(() => payloadKeysFromEnv({ WEBDATA_PAYLOAD_KEYS: `a=${KEY_A},a=${KEY_B}` }), /entry 2: its id is already used by entry 1/);
    oneLineWithoutKeys(() => payloadKeysFromEnv({ WEBDATA_PAYLOAD_KEYS: `bad id=${KEY_A}` }), /entry 1: must be id=key, the id 1-64 of/);
    oneLineWithoutKeys(() => payloadKeysFromEnv({ WEBDATA_PAYLOAD_KEYS: ',,' }), /^WEBDATA_PAYLOAD_KEYS: names no key/);
    oneLineWithoutKeys(() => payloadKeysFromEnv({ WEBDATA_PAYLOAD_KEYS: `a=${KEY_A}`, WEBDATA_PAYLOAD_KEYS_FILE: '/keys' }), /set one of them, not both/);
  });

  test('a key file: one entry a line, comments and blank lines skipped, errors by line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'webdata-keys-'));
    try {
      const file = join(dir, 'keys');
      writeFileSync(file, `# newest first\nnew=${KEY_B}\n\nold=${KEY_A}\n`);
      const keyring = payloadKeysFromEnv({ WEBDATA_PAYLOAD_KEYS_FILE: file });
      assert.deepEqual(keyring?.toJSON(), { current: 'new', ids: ['new', 'old'] });
      writeFileSync(file, `new=${KEY_B}\nold=${KEY_A}x\n`);
      oneLineWithoutKeys(() => payloadKeysFromEnv({ WEBDATA_PAYLOAD_KEYS_FILE: file }), /^WEBDATA_PAYLOAD_KEYS_FILE: line 2: the key \(after the first =\)/);
      oneLineWithoutKeys(() => payloadKeysFromEnv({ WEBDATA_PAYLOAD_KEYS_FILE: join(dir, 'missing') }), /^WEBDATA_PAYLOAD_KEYS_FILE: cannot read .*missing \(no such file\)$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the DataConverter: our codec and the encoded failure converter', async () => {
    const converter = dataConverterFromEnv({ WEBDATA_PAYLOAD_KEYS: `a=${KEY_A}` });
    assert.ok(encryptsPayloads(converter));
    assert.equal(converter?.failureConverterPath, FAILURE_CONVERTER_PATH);
    const { failureConverter } = (await import(FAILURE_CONVERTER_PATH)) as { failureConverter: { errorToFailure(e: Error, c: typeof defaultPayloadConverter): { message?: string; encodedAttributes?: Payload } } };
    const failure = failureConverter.errorToFailure(new Error('fetch https://customer.example/very-private-path failed'), defaultPayloadConverter);
    assert.equal(failure.message, 'Encoded failure');
    assert.match(String(defaultPayloadConverter.fromPayload<{ message: string }>(failure.encodedAttributes ?? {}).message), /very-private-path/);
    assert.ok(!encryptsPayloads(undefined) && !encryptsPayloads({ payloadCodecs: [] }));
  });
});

describe('payload keys in the worker settings', () => {
  const base = { WEBDATA_API_URL: 'http://127.0.0.1:3002', WEBDATA_API_KEY: 'wd-secret-key-123' };

  test('set: the keyring, current key first; unset: none', () => {
    assert.equal(readWorkerSettings(base).payloadKeys, undefined);
    assert.deepEqual(readWorkerSettings({ ...base, WEBDATA_PAYLOAD_KEYS: `new=${KEY_B},old=${KEY_A}` }).payloadKeys?.toJSON(), { current: 'new', ids: ['new', 'old'] });
  });

  test('problems: one line each, with the others, never a key', () => {
    const problems = (env: NodeJS.ProcessEnv) => {
      try {
        readWorkerSettings(env);
      } catch (err) {
        assert.ok(err instanceof WorkerSettingsError);
        for (const k of [KEY_A, KEY_B]) assert.ok(!err.message.includes(k));
        return err.problems;
      }
      return assert.fail('expected WorkerSettingsError');
    };
    const lines = problems({ ...base, WEBDATA_PAYLOAD_KEYS: `a=${KEY_A.slice(0, 40)}`, WEBDATA_MAX_CONCURRENT_ACTIVITIES: 'many' });
    assert.ok(lines.some((l) => /^WEBDATA_PAYLOAD_KEYS: entry 1: the key \(after the first =\) must be 32 bytes/.test(l)), lines.join('\n'));
    assert.ok(lines.some((l) => l.startsWith('WEBDATA_MAX_CONCURRENT_ACTIVITIES: ')), lines.join('\n'));
    const dir = mkdtempSync(join(tmpdir(), 'webdata-keys-'));
    try {
      writeFileSync(join(dir, 'keys'), `b=${KEY_B}\n`);
      assert.deepEqual(problems({ ...base, WEBDATA_PAYLOAD_KEYS: `a=${KEY_A}`, WEBDATA_PAYLOAD_KEYS_FILE: join(dir, 'keys') }), ['WEBDATA_PAYLOAD_KEYS and WEBDATA_PAYLOAD_KEYS_FILE: set one of them, not both (they are one setting)']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('codec server over HTTP', () => {
  test('encode then decode round trips; errors are one-line JSON with their status', async () => {
    const server = await startCodecServer({ keyring: parsePayloadKeys(`a=${KEY_A}`), maxBodyBytes: 4096 });
    try {
      const post = (path: string, body: string, method = 'POST') => fetch(`${server.url}${path}`, { method, headers: { 'content-type': 'application/json', 'x-namespace': 'default' }, body: method === 'POST' ? body : undefined });
      const plain = { metadata: { encoding: Buffer.from('json/plain').toString('base64') }, data: Buffer.from(JSON.stringify(SECRET_INPUT)).toString('base64') };
      const encoded = (await (await post('/encode', JSON.stringify({ payloads: [plain] }))).json()) as { payloads: Array<{ metadata: Record<string, string>; data: string }> };
      assert.equal(Buffer.from(encoded.payloads[0].metadata.encoding, 'base64').toString(), ENCODING);
      assert.ok(!Buffer.from(encoded.payloads[0].data, 'base64').includes('very-private-path'));
      const decoded = await (await post('/decode', JSON.stringify(encoded))).json();
      assert.deepEqual(decoded, { payloads: [plain] });

      const error = async (res: Response, status: number, pattern: RegExp) => {
        assert.equal(res.status, status);
        const body = (await res.json()) as { error: string };
        assert.match(body.error, pattern);
        assert.doesNotMatch(body.error, /\n/);
      };
      await error(await post('/nope', '{}'), 404, /POST \/encode or \/decode/);
      await error(await post('/decode', '', 'GET'), 405, /use POST/);
      await error(await post('/decode', 'not json'), 400, /must be JSON/);
      await error(await post('/decode', JSON.stringify({ payloads: [{ data: '***' }] })), 400, /payloads\.0\.data: must be a base64 string/);
      await error(await post('/decode', JSON.stringify({ payloads: [plain, plain, plain, plain, plain, plain, plain, plain, plain, plain, plain, plain, plain, plain, plain, plain, plain, plain, plain, plain, plain, plain, plain, plain, plain, plain] })), 413, /over 4096 bytes/);
      const other = new EncryptionCodec(parsePayloadKeys(`retired=${KEY_B}`));
      const [foreign] = await other.encode([defaultPayloadConverter.toPayload('x')]);
      const asJson = { metadata: Object.fromEntries(Object.entries(foreign.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')])), data: Buffer.from(foreign.data ?? []).toString('base64') };
      await error(await post('/decode', JSON.stringify({ payloads: [asJson] })), 422, /key id "retired"/);
    } finally {
      await server.close();
    }
  });
});

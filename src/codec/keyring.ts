// The payload keys: entries `id=base64key` (the key 32 random bytes, AES-256), the first one the
// current key that encrypts new payloads, the others kept to decrypt what they encrypted (that is
// how keys rotate). A problem is one line naming where the entry is (its position) and the rule,
// never the entry's text: a misplaced `=` would make a key look like an id.
import { createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { inspect } from 'node:util';

export const KEY_BYTES = 32;
export const KEY_ID_RULE = /^[A-Za-z0-9._-]{1,64}$/;
/** Standard base64 of 32 bytes: 43 characters and one `=` (the `=` may be left out). */
const KEY_TEXT = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=?$/;

export class PayloadKeysError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PayloadKeysError';
  }
}

export interface PayloadKey {
  id: string;
  key: KeyObject;
}

/** Keys by id; `current` encrypts. Printing or serialising it shows the ids only. */
export class PayloadKeyring {
  readonly current: PayloadKey;
  private readonly byId: ReadonlyMap<string, KeyObject>;

  constructor(keys: readonly PayloadKey[]) {
    if (keys.length === 0) throw new PayloadKeysError('a payload keyring needs at least one key');
    this.current = keys[0];
    this.byId = new Map(keys.map((k) => [k.id, k.key]));
  }

  get ids(): string[] {
    return [...this.byId.keys()];
  }

  key(id: string): KeyObject | undefined {
    return this.byId.get(id);
  }

  toJSON(): { current: string; ids: string[] } {
    return { current: this.current.id, ids: this.ids };
  }

  [inspect.custom](): string {
    return `PayloadKeyring { current: ${this.current.id}, ids: ${this.ids.join(', ')} }`;
  }
}

/**
 * Parses key entries; messages name `source` and the entry's place (`WEBDATA_PAYLOAD_KEYS: entry 2`,
 * `WEBDATA_PAYLOAD_KEYS_FILE: line 3`). Blank entries and `#` comments are skipped.
 */
export function parseKeyEntries(entries: readonly string[], source: string, unit: 'entry' | 'line' = 'entry'): PayloadKeyring {
  const where = (i: number) => `${source}: ${unit} ${i + 1}`;
  const keys: PayloadKey[] = [];
  const firstAt = new Map<string, number>();
  entries.forEach((raw, i) => {
    const entry = raw.trim();
    if (entry === '' || entry.startsWith('#')) return;
    const eq = entry.indexOf('=');
    const id = eq < 0 ? '' : entry.slice(0, eq).trim();
    const text = eq < 0 ? '' : entry.slice(eq + 1).trim();
    if (!KEY_ID_RULE.test(id)) throw new PayloadKeysError(`${where(i)}: must be id=key, the id 1-64 of A-Z a-z 0-9 . _ - (make one with \`webdata codec-server --new-key\`)`);
    if (!KEY_TEXT.test(text)) throw new PayloadKeysError(`${where(i)}: the key (after the first =) must be ${KEY_BYTES} bytes in base64 (44 characters; make one with \`webdata codec-server --new-key\`)`);
    const seen = firstAt.get(id);
    if (seen !== undefined) throw new PayloadKeysError(`${where(i)}: its id is already used by ${unit} ${seen + 1}: each key needs its own id`);
    firstAt.set(id, i);
    keys.push({ id, key: createSecretKey(Buffer.from(text, 'base64')) });
  });
  if (keys.length === 0) throw new PayloadKeysError(`${source}: names no key (entries id=key, the first encrypts)`);
  return new PayloadKeyring(keys);
}

/** One fresh entry, `id=base64`; the id defaults to `key-<UTC date>-<4 random hex>`. */
export function newKeyEntry(id?: string, now = new Date()): string {
  const keyId = id ?? `key-${now.toISOString().slice(0, 10).replace(/-/g, '')}-${randomBytes(2).toString('hex')}`;
  if (!KEY_ID_RULE.test(keyId)) throw new PayloadKeysError(`key id: must be 1-64 of A-Z a-z 0-9 . _ -`);
  return `${keyId}=${randomBytes(KEY_BYTES).toString('base64')}`;
}

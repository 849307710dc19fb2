// AES-256-GCM payload codec: each payload, whole (metadata and data, as protobuf bytes), is
// encrypted with the keyring's current key and a fresh random 12-byte IV. The result carries
// `encoding: binary/encrypted` and the key's id, and its data is IV ‖ ciphertext ‖ 16-byte tag,
// the layout of Temporal's encryption samples. Decoding picks the key by that id, so payloads
// written before a rotation still read; payloads that are not ours (older runs written in clear)
// pass through unchanged.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import type { PayloadKeyring } from './keyring.js';
import { decodePayloadProto, encodePayloadProto } from './payload-proto.js';

export const ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/** A payload this codec cannot read: its key id is unknown, or its bytes fail authentication. */
export class PayloadDecryptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PayloadDecryptionError';
  }
}

/** Recognised across copies of the package (sources and lib/ loaded side by side). */
const BRAND = Symbol.for('webdata-temporal.encryption-codec');

export class EncryptionCodec implements PayloadCodec {
  readonly [BRAND] = true;
  constructor(readonly keyring: PayloadKeyring) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => this.encrypt(p));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => this.decrypt(p));
  }

  encrypt(payload: Payload): Payload {
    // A reference to an externally stored payload (the SDK's experimental external storage) holds no data.
    if (payload.externalPayloads?.length) return payload;
    const { id, key } = this.keyring.current;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const sealed = Buffer.concat([iv, cipher.update(encodePayloadProto(payload)), cipher.final(), cipher.getAuthTag()]);
    return { metadata: { encoding: utf8.encode(ENCODING), [KEY_ID_METADATA]: utf8.encode(id) }, data: new Uint8Array(sealed.buffer, sealed.byteOffset, sealed.length) };
  }

  decrypt(payload: Payload): Payload {
    const encoding = payload.metadata?.encoding;
    if (!encoding || fromUtf8.decode(encoding) !== ENCODING) return payload;
    const idBytes = payload.metadata?.[KEY_ID_METADATA];
    if (!idBytes) throw new PayloadDecryptionError(`an encrypted payload has no ${KEY_ID_METADATA}: it was not written by this codec`);
    const id = fromUtf8.decode(idBytes);
    const key = this.keyring.key(id);
    if (!key) throw new PayloadDecryptionError(`payload encrypted with key id "${id}", which the payload keys (WEBDATA_PAYLOAD_KEYS or WEBDATA_PAYLOAD_KEYS_FILE) do not name (they name ${this.keyring.ids.join(', ')}); add that key back to the list`);
    const data = payload.data ?? new Uint8Array();
    if (data.length < IV_BYTES + TAG_BYTES) throw new PayloadDecryptionError(`payload encrypted with key id "${id}" is too short to be ours`);
    const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES));
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    let plain: Buffer;
    try {
      plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
    } catch {
      throw new PayloadDecryptionError(`payload encrypted with key id "${id}" failed authentication: it was altered, or that id names another key than the one that encrypted it`);
    }
    return decodePayloadProto(plain);
  }
}

/** Whether a codec is this package's encryption codec (by its brand, not its class). */
export function isEncryptionCodec(codec: unknown): codec is EncryptionCodec {
  return typeof codec === 'object' && codec !== null && (codec as Record<symbol, unknown>)[BRAND] === true;
}

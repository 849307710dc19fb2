// The one setting of payload encryption, read alike by the worker, the CLI, `webdata dev` and
// `webdata codec-server`: WEBDATA_PAYLOAD_KEYS (entries inline, comma-separated) or
// WEBDATA_PAYLOAD_KEYS_FILE (a file, one entry a line). Neither set: payloads stay in clear.
import { readFileSync } from 'node:fs';
import { parseKeyEntries, PayloadKeysError, type PayloadKeyring } from './keyring.js';

export const PAYLOAD_KEYS_ENV = 'WEBDATA_PAYLOAD_KEYS';
export const PAYLOAD_KEYS_FILE_ENV = 'WEBDATA_PAYLOAD_KEYS_FILE';

/** The keys of WEBDATA_PAYLOAD_KEYS's value. */
export function parsePayloadKeys(value: string): PayloadKeyring {
  return parseKeyEntries(value.split(','), PAYLOAD_KEYS_ENV);
}

/** The keys in the file WEBDATA_PAYLOAD_KEYS_FILE names. */
export function readPayloadKeysFile(path: string): PayloadKeyring {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new PayloadKeysError(`${PAYLOAD_KEYS_FILE_ENV}: cannot read ${path} (${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (code ?? 'unreadable')})`);
  }
  return parseKeyEntries(text.split(/\r?\n/), PAYLOAD_KEYS_FILE_ENV, 'line');
}

/** The keyring the environment sets, or undefined (encryption off). Throws PayloadKeysError (one line). */
export function payloadKeysFromEnv(env: NodeJS.ProcessEnv = process.env): PayloadKeyring | undefined {
  const inline = env[PAYLOAD_KEYS_ENV];
  const file = env[PAYLOAD_KEYS_FILE_ENV];
  const hasInline = inline !== undefined && inline.trim() !== '';
  const hasFile = file !== undefined && file.trim() !== '';
  if (hasInline && hasFile) throw new PayloadKeysError(`${PAYLOAD_KEYS_ENV} and ${PAYLOAD_KEYS_FILE_ENV}: set one of them, not both (they are one setting)`);
  if (hasInline) return parsePayloadKeys(inline);
  if (hasFile) return readPayloadKeysFile(file.trim());
  return undefined;
}

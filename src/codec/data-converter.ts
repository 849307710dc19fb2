// The SDK DataConverter of encrypted payloads, for a Client, a Worker and the codec server alike.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { DataConverter, LoadedDataConverter } from '@temporalio/common';
import type { PayloadKeyring } from './keyring.js';
import { EncryptionCodec, isEncryptionCodec } from './payload-codec.js';
import { payloadKeysFromEnv } from './settings.js';

/**
 * The failure converter module (message and stack trace encoded). A plain CommonJS file kept in
 * src/ (tsc does not copy it to lib/): the path is the same from src/codec/ and lib/codec/.
 */
export const FAILURE_CONVERTER_PATH = fileURLToPath(new URL('../../src/codec/failure-converter.cjs', import.meta.url));

/** A string of the failure converter module, found in a workflow bundle that carries it. */
export const FAILURE_CONVERTER_MARKER = 'webdata-temporal:encoded-failure-converter';

/** The DataConverter that encrypts payloads with the keyring and encodes failures' messages. */
export function webDataDataConverter(keyring: PayloadKeyring): DataConverter {
  return { payloadCodecs: [new EncryptionCodec(keyring)], failureConverterPath: FAILURE_CONVERTER_PATH };
}

/** The DataConverter WEBDATA_PAYLOAD_KEYS(_FILE) sets, or undefined (payloads in clear). Throws PayloadKeysError. */
export function dataConverterFromEnv(env: NodeJS.ProcessEnv = process.env): DataConverter | undefined {
  const keyring = payloadKeysFromEnv(env);
  return keyring ? webDataDataConverter(keyring) : undefined;
}

/** Whether a client's (or worker's) data converter encrypts with this package's codec. */
export function encryptsPayloads(converter: DataConverter | LoadedDataConverter | undefined): boolean {
  return (converter?.payloadCodecs ?? []).some(isEncryptionCodec);
}

/** Whether a prebuilt workflow bundle (WEBDATA_WORKFLOW_BUNDLE) carries the encoded failure converter. */
export function bundleEncodesFailures(bundlePath: string): boolean {
  return readFileSync(bundlePath, 'utf8').includes(FAILURE_CONVERTER_MARKER);
}

// `webdata-temporal/codec`: payloads encrypted before they leave the process (AES-256-GCM, keys
// by id, rotation), the DataConverter for a Client and a Worker, and the codec server that the
// Temporal UI and the `temporal` CLI call to read them. docs/tenant-data.md says how to use it.
export { PayloadKeyring, PayloadKeysError, parseKeyEntries, newKeyEntry, KEY_BYTES, KEY_ID_RULE, type PayloadKey } from './keyring.js';
export { EncryptionCodec, PayloadDecryptionError, isEncryptionCodec, ENCODING, KEY_ID_METADATA } from './payload-codec.js';
export { PAYLOAD_KEYS_ENV, PAYLOAD_KEYS_FILE_ENV, parsePayloadKeys, readPayloadKeysFile, payloadKeysFromEnv } from './settings.js';
export { webDataDataConverter, dataConverterFromEnv, encryptsPayloads, bundleEncodesFailures, FAILURE_CONVERTER_PATH, FAILURE_CONVERTER_MARKER } from './data-converter.js';
export { encodePayloadProto, decodePayloadProto } from './payload-proto.js';
export { startCodecServer, DEFAULT_UI_ORIGINS, MAX_BODY_BYTES, type CodecServer, type CodecServerOptions } from './codec-server.js';

// webdata-contract: the wire contract of the Web Data Extraction Service API v2, in one place.
// Request schemas (zod) validate bodies on both sides: the client before sending, the local
// service on arrival. Response types describe what both sides exchange.
export * from './schemas/index.js';
export * from './types.js';
export * from './prices.js';
export * from './defaults.js';
export * from './error-kinds.js';
export * from './url-keys.js';
export * from './untrusted/index.js';

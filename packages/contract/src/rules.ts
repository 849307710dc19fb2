// The contract without its request schemas: defaults, prices, error kinds, URL keys, the rules
// for untrusted input, the issue format and the schema factories. Nothing here builds a schema
// when loaded, so a workflow bundle can load it once per worker and share it between runs.
export * from './defaults.js';
export * from './prices.js';
export * from './error-kinds.js';
export * from './url-keys.js';
export * from './untrusted/index.js';
export * from './schemas/issues.js';
export * from './schemas/factories.js';

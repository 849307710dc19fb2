export * from './types.js';
export { createStore, type CreateStoreOptions } from './create-store.js';
export { FilesystemStore, type FilesystemStoreOptions } from './filesystem-store.js';
export { PostgresStore, type PostgresStoreOptions } from './postgres-store.js';
export { StoreError, type StoreErrorKind } from './errors.js';

// Rules for input that comes from a deployment's own customers (tenants): addresses, patterns.
export * from './address.js';
export * from './allowance.js';
export * from './pattern.js';
export * from './urls.js';

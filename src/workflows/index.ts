// Workflow entry points registered by the worker (bundled by Temporal's webpack bundler).
export { webDataPipeline } from './pipeline.js';
export { parseDocuments } from './parse-documents.js';
export { webdataTenantLedger } from './tenant-ledger.js';
export { webdataTenantDefaults } from './tenant-defaults.js';
export { webdataTeamGovernor } from './team-governor.js';

export { resolveTemporalCli, temporalCliCacheDir, TEMPORAL_CLI_VERSION } from './temporal-cli.js';
export type { ResolvedTemporalCli, TemporalCliSource } from './temporal-cli.js';
export { freeLoopbackPort } from './free-port.js';
export { FAIRNESS_DYNAMIC_CONFIG, fairnessDevServerArgs } from './fairness.js';

export * from './defaults.js';
export { ConfigError, loadConfigFile, parseConfig, formatIssues, type LoadedConfig } from './load.js';
export { createTeamRegistry, type TeamRegistry } from './teams.js';

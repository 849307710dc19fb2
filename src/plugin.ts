// `webdata-temporal/plugin`: the Temporal worker plugin on its own.
export { webDataPlugin, PLUGIN_NAME } from './worker/plugin.js';
export type { ActivityDeps as WebDataPluginOptions } from './activities/deps.js';

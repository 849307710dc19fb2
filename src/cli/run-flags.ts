// The flags `webdata run` and `webdata schedule create` share, as node:util parseArgs options.
// A module of its own so that the help (help.ts) lists them without loading the input schemas.
export const runFlags = {
  input: { type: 'string' },
  mode: { type: 'string' },
  include: { type: 'string', multiple: true },
  exclude: { type: 'string', multiple: true },
  search: { type: 'string' },
  limit: { type: 'string' },
  'crawl-limit': { type: 'string' },
  depth: { type: 'string' },
  budget: { type: 'string' },
  'monthly-cap': { type: 'string' },
  skip: { type: 'string' },
  'interact-match': { type: 'string' },
  'interact-code': { type: 'string' },
  'interact-language': { type: 'string' },
  'interact-prompt': { type: 'string' },
  'agent-prompt': { type: 'string' },
  'agent-model': { type: 'string' },
  'agent-max-credits': { type: 'string' },
  'webhook-url': { type: 'string' },
  tenant: { type: 'string' },
  priority: { type: 'string' },
  'api-key-ref': { type: 'string' },
  'task-queue': { type: 'string' },
  'workflow-id': { type: 'string' },
  'dry-run': { type: 'boolean' },
} as const;

/** What `webdata schedule create` takes of them: all but the workflow id (a schedule names its runs `<id>-run-<time>`). */
const { 'workflow-id': _workflowId, ...scheduleFlags } = runFlags;
export const scheduleRunFlags = scheduleFlags;

// What a backend calls: start a pipeline, read its progress, cancel it.
import { randomBytes } from 'node:crypto';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { webDataPipeline } from '../workflows/pipeline.js';
import { PIPELINE_WORKFLOW_TYPE, progressQuery, raiseBudgetUpdate, type PipelineProgress } from '../workflows/definitions.js';
import { parsePipelineInput, PipelineInputError, recordAddressPolicy, type PipelineConfig, type PipelineInput } from '../workflows/input.js';
import { unknownApiKeyRefIssue } from '../keys/check.js';
import type { ApiKeyResolver } from '../keys/resolver.js';
import { addressPolicy, type AddressPolicyOption } from './address-policy.js';
import type { PipelineResult } from '../workflows/state.js';
import { OUTCOME, STAGE, TARGET_HOST, TENANT } from '../search-attributes.js';
import { DEFAULT_TENANT, priorityOf } from '../shared/tenant.js';
import { hostOf } from '../workflows/host.js';
import { DEFAULT_TASK_QUEUE } from '../shared/task-queue.js';
import { withSearchAttributeHint } from '../coordination/search-attribute-check.js';
import { HOST_IN_VISIBILITY_MEMO } from '../shared/visibility.js';
import { encryptsPayloads } from '../codec/index.js';

export { DEFAULT_TASK_QUEUE } from '../shared/task-queue.js';

export interface StartPipelineOptions extends AddressPolicyOption {
  taskQueue?: string;
  /** Default: `webdata-<host>-<timestamp>`. */
  workflowId?: string;
  /** Register the package's search attributes on the namespace (dev servers register them at start). */
  searchAttributes?: boolean;
  /** The worker's key names (e.g. apiKeyResolverFromEnv()): a run naming an unknown one is refused before it starts. */
  apiKeys?: ApiKeyResolver;
  /**
   * The target host in what Temporal keeps in clear: the default workflow id and the
   * WebdataTargetHost search attribute. Default: shown, unless the client encrypts payloads with
   * the package's codec (`webdata-temporal/codec`); then the default id is
   * `webdata-<timestamp>-<random>` and the attribute is left unset. `true` keeps them anyway.
   */
  hostInVisibility?: boolean;
}

/** Whether a run started by this client shows its host in ids and search attributes. */
export function showsHost(client: Client, option: boolean | undefined): boolean {
  return option ?? !encryptsPayloads(client.options?.loadedDataConverter);
}

export type PipelineHandle = WorkflowHandle<typeof webDataPipeline>;

/** One line for the Temporal UI list: what this run does. */
export function summarize(config: PipelineConfig): string {
  const stages = ['map', 'select', 'crawl', 'batch', 'interact', ...(config.agent ? ['agent'] : []), 'support'].filter((s) => config.stages?.[s as keyof NonNullable<PipelineConfig['stages']>] !== false);
  const budget = config.budget ? ` · budget ${config.budget.credits}` : '';
  const tenant = config.tenant ? `${config.tenant}: ` : '';
  return `${tenant}${config.mode} ${hostOf(config.url)} · ${stages.join('→')}${budget}`;
}

/** Markdown details for the Temporal UI: the run's configuration, without secrets (there are none in input). */
export function describe(config: PipelineConfig): string {
  const rows: Array<[string, unknown]> = [
    ['tenant', config.tenant],
    ['url', config.url],
    ['mode', config.mode],
    ['select', config.select],
    ['crawl', config.crawl],
    ['batch', config.batch],
    ['interact', config.interact ? { ...config.interact, code: config.interact.code ? `${config.interact.code.length} chars` : undefined } : undefined],
    ['agent', config.agent ? { ...config.agent, prompt: `${config.agent.prompt.length} chars` } : undefined],
    ['budget', config.budget],
  ];
  return ['| setting | value |', '|---|---|', ...rows.filter(([, v]) => v !== undefined).map(([k, v]) => `| ${k} | \`${JSON.stringify(v).replace(/\|/g, '\\|')}\` |`)].join('\n');
}

/** Validates the input (same schemas as the workflow: fails before anything starts) and starts the run. */
export async function startPipeline(client: Client, input: PipelineInput, options: StartPipelineOptions = {}): Promise<PipelineHandle> {
  const policy = addressPolicy(options);
  const recorded = recordAddressPolicy(input, policy);
  const config = parsePipelineInput(recorded, policy);
  const unknownKey = options.apiKeys && config.apiKeyRef !== undefined ? await unknownApiKeyRefIssue(config.apiKeyRef, options.apiKeys) : undefined;
  if (unknownKey) throw new PipelineInputError([{ path: 'apiKeyRef', message: unknownKey }]);
  const hostShown = showsHost(client, options.hostInVisibility);
  const workflowId = options.workflowId ?? (hostShown
    ? `webdata-${hostOf(config.url).replace(/[^a-z0-9.-]/gi, '-')}-${Date.now()}`
    : `webdata-${Date.now()}-${randomBytes(4).toString('hex')}`);
  return withSearchAttributeHint(client, () => client.workflow.start<typeof webDataPipeline>(PIPELINE_WORKFLOW_TYPE, {
    taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
    workflowId,
    args: [recorded],
    staticSummary: summarize(config),
    staticDetails: describe(config),
    priority: priorityOf(config),
    ...(hostShown ? {} : { memo: { [HOST_IN_VISIBILITY_MEMO]: false } }),
    typedSearchAttributes: [
      { key: TENANT, value: config.tenant ?? DEFAULT_TENANT },
      ...(hostShown ? [{ key: TARGET_HOST, value: hostOf(config.url) }] : []),
      { key: STAGE, value: 'starting' },
      { key: OUTCOME, value: 'running' },
    ],
  }));
}

export async function getProgress(client: Client, workflowId: string): Promise<PipelineProgress> {
  return client.workflow.getHandle(workflowId).query(progressQuery);
}

export async function getResult(client: Client, workflowId: string): Promise<PipelineResult> {
  return client.workflow.getHandle<typeof webDataPipeline>(workflowId).result();
}

/** Cancels the run through Temporal cancellation: running jobs are cancelled, sessions stopped. */
export async function cancelPipeline(client: Client, workflowId: string): Promise<void> {
  await client.workflow.getHandle(workflowId).cancel();
}

export async function raiseBudget(client: Client, workflowId: string, credits: number): Promise<{ budget: number }> {
  return client.workflow.getHandle(workflowId).executeUpdate(raiseBudgetUpdate, { args: [{ credits }] });
}

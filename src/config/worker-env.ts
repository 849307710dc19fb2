// Worker settings from the environment. Every problem is reported at once, one line each,
// naming the variable and the rule; the API key is never echoed.
import { z } from 'zod';
import { addressAllowanceOption, parseAddressAllowance } from 'webdata-contract';
import { parsePayloadKeys, readPayloadKeysFile, type PayloadKeyring } from '../codec/index.js';
import { API_KEYS_SETTING_RULE, parseApiKeysSetting, type ApiKeysSetting } from '../keys/setting.js';

const positiveInt = (name: string) =>
  z.string().regex(/^\d+$/, { error: `${name}: must be a whole number` }).transform(Number).pipe(z.number().int().min(1, { error: `${name}: must be at least 1` }));

const positiveNumber = (name: string) =>
  z.string().regex(/^\d+(\.\d+)?$/, { error: `${name}: must be a number` }).transform(Number).pipe(z.number().positive({ error: `${name}: must be above 0` }));

/** Workflow task polls: scaled by the worker with the server's hints, or at most this many at once. */
export type WorkflowTaskPollers = 'autoscaling' | number;

const envSchema = z.object({
  WEBDATA_API_URL: z.url({ protocol: /^https?$/, error: 'WEBDATA_API_URL: must be an http(s) URL, e.g. http://127.0.0.1:3002' }),
  WEBDATA_API_KEY: z.string({ error: 'WEBDATA_API_KEY: is required (the service API key)' }).min(1, { error: 'WEBDATA_API_KEY: is required (the service API key)' }),
  WEBDATA_API_KEYS: z.string().optional().transform((value, ctx) => {
    if (value === undefined || value === '') return undefined;
    return parseApiKeysSetting(value) ?? (ctx.addIssue({ code: 'custom', message: API_KEYS_SETTING_RULE }), z.NEVER);
  }),
  WEBDATA_TASK_QUEUE: z.string().min(1).default('webdata'),
  WEBDATA_STORE: z.string().min(1).default('.data/store'),
  WEBDATA_MAX_CONCURRENT_ACTIVITIES: positiveInt('WEBDATA_MAX_CONCURRENT_ACTIVITIES').optional(),
  WEBDATA_MAX_CONCURRENT_WORKFLOW_TASKS: positiveInt('WEBDATA_MAX_CONCURRENT_WORKFLOW_TASKS').optional(),
  WEBDATA_MAX_ACTIVITIES_PER_SECOND: positiveNumber('WEBDATA_MAX_ACTIVITIES_PER_SECOND').optional(),
  WEBDATA_WORKFLOW_THREADS: positiveInt('WEBDATA_WORKFLOW_THREADS').optional(),
  WEBDATA_MAX_CACHED_WORKFLOWS: positiveInt('WEBDATA_MAX_CACHED_WORKFLOWS').optional(),
  WEBDATA_WORKFLOW_TASK_POLLERS: z.string().regex(/^(autoscaling|[1-9]\d*)$/, { error: 'WEBDATA_WORKFLOW_TASK_POLLERS: must be autoscaling or a whole number of at least 1 (a fixed maximum of polls)' })
    .transform((value): WorkflowTaskPollers => (value === 'autoscaling' ? 'autoscaling' : Number(value))).optional(),
  WEBDATA_FOLLOW_MAX_IDLE_MS: positiveInt('WEBDATA_FOLLOW_MAX_IDLE_MS').optional(),
  WEBDATA_WORKFLOW_BUNDLE: z.string().min(1).optional(),
  WEBDATA_API_TIMEOUT_MS: positiveInt('WEBDATA_API_TIMEOUT_MS').optional(),
  WEBDATA_COLLECT_PAGE_SIZE: positiveInt('WEBDATA_COLLECT_PAGE_SIZE').optional(),
  WEBDATA_ROBOTS_USER_AGENT: z.string().regex(/^[A-Za-z_-]+$/, { error: 'WEBDATA_ROBOTS_USER_AGENT: must be a robots.txt product token (letters, "_" and "-"), e.g. WebDataBot' }).optional(),
  WEBDATA_CHANGES_WEBHOOK_SECRET: z.string().min(16, { error: 'WEBDATA_CHANGES_WEBHOOK_SECRET: must be at least 16 characters' }).optional(),
  WEBDATA_METRICS_BIND: z.string().regex(/^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, { error: 'WEBDATA_METRICS_BIND: must be host:port, e.g. 0.0.0.0:9464' }).optional(),
  WEBDATA_LOG_FORMAT: z.enum(['text', 'json'], { error: 'WEBDATA_LOG_FORMAT: must be text or json' }).default('text'),
  WEBDATA_DEPLOYMENT_NAME: z.string().regex(/^[^.\s]+$/, { error: 'WEBDATA_DEPLOYMENT_NAME: must be a name without dots or spaces, e.g. webdata' }).optional(),
  WEBDATA_BUILD_ID: z.string().regex(/^\S+$/, { error: 'WEBDATA_BUILD_ID: must be a build id without spaces, e.g. a git commit or 2026.11.23-1' }).optional(),
  // Read as the client reads it (empty is off); a malformed entry is one line from the parser.
  WEBDATA_ALLOW_PRIVATE_ADDRESSES: z.string().optional().transform((value, ctx) => {
    try {
      return addressAllowanceOption(parseAddressAllowance(value));
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message });
      return z.NEVER;
    }
  }),
  // Payload encryption keys, inline or in a file (one setting: both set is refused below).
  WEBDATA_PAYLOAD_KEYS: z.string().optional().transform((value, ctx) => payloadKeys(value, parsePayloadKeys, ctx)),
  WEBDATA_PAYLOAD_KEYS_FILE: z.string().optional().transform((value, ctx) => payloadKeys(value?.trim(), readPayloadKeysFile, ctx)),
}).superRefine((e, ctx) => {
  if (e.WEBDATA_PAYLOAD_KEYS && e.WEBDATA_PAYLOAD_KEYS_FILE) ctx.addIssue({ code: 'custom', path: ['WEBDATA_PAYLOAD_KEYS'], message: 'WEBDATA_PAYLOAD_KEYS and WEBDATA_PAYLOAD_KEYS_FILE: set one of them, not both (they are one setting)' });
  if ((e.WEBDATA_DEPLOYMENT_NAME === undefined) !== (e.WEBDATA_BUILD_ID === undefined)) {
    const missing = e.WEBDATA_BUILD_ID === undefined ? 'WEBDATA_BUILD_ID' : 'WEBDATA_DEPLOYMENT_NAME';
    ctx.addIssue({ code: 'custom', path: [missing], message: `${missing}: is required with ${missing === 'WEBDATA_BUILD_ID' ? 'WEBDATA_DEPLOYMENT_NAME' : 'WEBDATA_BUILD_ID'} (worker versioning needs both)` });
  }
});

/** A keyring from a payload keys variable (unset or blank: none); a problem is the parser's one line. */
function payloadKeys(value: string | undefined, parse: (value: string) => PayloadKeyring, ctx: z.RefinementCtx): PayloadKeyring | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  try {
    return parse(value);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message });
    return z.NEVER;
  }
}

export interface WorkerSettings {
  apiUrl: string;
  apiKey: string;
  /** Where keys named by runs (input.apiKeyRef) are found (WEBDATA_API_KEYS); unset: a run naming one fails. */
  apiKeys?: ApiKeysSetting;
  taskQueue: string;
  store: string;
  maxConcurrentActivities?: number;
  maxConcurrentWorkflowTasks?: number;
  /** Threads that run workflow code (each with its own V8 context). */
  workflowThreads?: number;
  /**
   * Runs kept in the worker's sticky cache (WorkerOptions.maxCachedWorkflows; default the SDK's,
   * from the heap size). Each cached run holds its workflow modules' state; a run evicted from
   * the cache replays its (short) history on its next task. Bounds the worker's memory when more
   * runs are open at once than fit: see docs/benchmarks.md, "Many pipelines on one worker".
   */
  maxCachedWorkflows?: number;
  /** How the worker polls for workflow tasks (WEBDATA_WORKFLOW_TASK_POLLERS): see WebDataWorkerOptions.workflowTaskPollers. */
  workflowTaskPollers?: WorkflowTaskPollers;
  /**
   * Longest pause (ms) between two status reads of a job's follower while reads bring little
   * (default 1,000): longer sends fewer requests for slow jobs, shorter sees a job's end sooner.
   */
  followMaxIdleMs?: number;
  /** Task-queue-wide activity rate: all workers together stay under the service's rate limit. */
  maxTaskQueueActivitiesPerSecond?: number;
  workflowBundlePath?: string;
  apiTimeoutMs?: number;
  /** Items per status page when collecting (the service's default page is 100). */
  collectPageSize?: number;
  /**
   * robots.txt agent (product token) whose rules the pipeline's own robots check applies: the
   * crawler of the service you call. Default `WebDataBot`, the local service's agent; for the
   * open-source Firecrawl server use its token (e.g. `FirecrawlAgent`). `*` rules apply when a
   * site has no group for it.
   */
  robotsUserAgent?: string;
  /** Signs the change summary webhook of series runs (input.changes.webhookUrl). */
  changesWebhookSecret?: string;
  /** Prometheus scrape endpoint (`host:port`) of the runtime's and the package's metrics. */
  metricsBind?: string;
  /** `json`: one JSON object per log line; `text` (default): the SDK's one-line format. */
  logFormat: 'text' | 'json';
  /**
   * Worker versioning (WEBDATA_DEPLOYMENT_NAME + WEBDATA_BUILD_ID): the worker joins this worker
   * deployment version; runs stay on the version they started on (PINNED by default).
   */
  deployment?: { deploymentName: string; buildId: string };
  /**
   * Loopback, private, link-local and other non-public hosts that URLs may name (requests to the
   * service and the worker's own fetches): the listed `host`/`host:port` entries, `true` all (the
   * blanket 1/true), `false` none (the default: tenants' URLs must not reach inward).
   */
  allowPrivateAddresses: boolean | string[];
  /** Payload encryption (WEBDATA_PAYLOAD_KEYS or WEBDATA_PAYLOAD_KEYS_FILE); undefined: payloads in clear. */
  payloadKeys?: PayloadKeyring;
}

export class WorkerSettingsError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(problems.join('\n'));
    this.name = 'WorkerSettingsError';
    this.problems = problems;
  }
}

export function readWorkerSettings(env: NodeJS.ProcessEnv = process.env): WorkerSettings {
  const parsed = envSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith('WEBDATA_'))));
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? '');
      return issue.message.startsWith(name) ? issue.message : `${name}: ${issue.message}`;
    });
    throw new WorkerSettingsError(problems);
  }
  const e = parsed.data;
  return {
    apiUrl: e.WEBDATA_API_URL,
    apiKey: e.WEBDATA_API_KEY,
    apiKeys: e.WEBDATA_API_KEYS,
    taskQueue: e.WEBDATA_TASK_QUEUE,
    store: e.WEBDATA_STORE,
    maxConcurrentActivities: e.WEBDATA_MAX_CONCURRENT_ACTIVITIES,
    maxConcurrentWorkflowTasks: e.WEBDATA_MAX_CONCURRENT_WORKFLOW_TASKS,
    maxTaskQueueActivitiesPerSecond: e.WEBDATA_MAX_ACTIVITIES_PER_SECOND,
    workflowThreads: e.WEBDATA_WORKFLOW_THREADS,
    maxCachedWorkflows: e.WEBDATA_MAX_CACHED_WORKFLOWS,
    workflowTaskPollers: e.WEBDATA_WORKFLOW_TASK_POLLERS,
    followMaxIdleMs: e.WEBDATA_FOLLOW_MAX_IDLE_MS,
    workflowBundlePath: e.WEBDATA_WORKFLOW_BUNDLE,
    apiTimeoutMs: e.WEBDATA_API_TIMEOUT_MS,
    collectPageSize: e.WEBDATA_COLLECT_PAGE_SIZE,
    robotsUserAgent: e.WEBDATA_ROBOTS_USER_AGENT,
    changesWebhookSecret: e.WEBDATA_CHANGES_WEBHOOK_SECRET,
    metricsBind: e.WEBDATA_METRICS_BIND,
    logFormat: e.WEBDATA_LOG_FORMAT,
    allowPrivateAddresses: e.WEBDATA_ALLOW_PRIVATE_ADDRESSES,
    payloadKeys: e.WEBDATA_PAYLOAD_KEYS ?? e.WEBDATA_PAYLOAD_KEYS_FILE,
    deployment: e.WEBDATA_DEPLOYMENT_NAME !== undefined && e.WEBDATA_BUILD_ID !== undefined
      ? { deploymentName: e.WEBDATA_DEPLOYMENT_NAME, buildId: e.WEBDATA_BUILD_ID }
      : undefined,
  };
}

// The fields of PipelineInput that belong to the pipeline, with its rules and defaults: one list
// for the two checks of a run's input. The client's (input.ts) gives them the contract's request
// schemas in full; the workflow's own (input-check.ts) gives them the untrusted parts only, so a
// run evaluates no request schema of the contract.
import { z } from 'zod';
import {
  addressAllowanceOf,
  ALLOW_PRIVATE_ADDRESSES_ENV,
  formatIssues,
  INTERACT_REQUEST_FIELDS,
  MAX_AGENT_URLS,
  MIN_BUDGET_CREDITS,
  privateUrlIssues,
  type PrivateAddressOption,
} from 'webdata-contract/rules';
import type { ContractParts, PipelineConfig } from './input.js';
import { priorityKeySchemaOf, tenantSchemaOf } from '../shared/tenant.js';
import { apiKeyRefSchemaOf } from '../shared/api-key-ref.js';
import { DEFAULT_LEASE_TTL_MS, DEFAULT_OVERCOMMIT, MAX_OVERCOMMIT } from '../shared/team-governor-rules.js';

export const STAGES = ['map', 'select', 'crawl', 'batch', 'interact', 'agent', 'support'] as const;
export type StageName = (typeof STAGES)[number];

/** Fields a support answer may change, per stage; anything else in `fixParameters` is refused. */
export const DEFAULT_FIXABLE_FIELDS: Record<'crawl' | 'batch' | 'interact', string[]> = {
  crawl: ['includePaths', 'excludePaths', 'maxDiscoveryDepth', 'limit', 'sitemap', 'crawlEntireDomain',
    'allowSubdomains', 'ignoreQueryParameters', 'regexOnFullURL', 'delay', 'maxConcurrency', 'scrapeOptions'],
  batch: ['scrapeOptions', 'maxConcurrency'],
  // Every field of the interact request; not `match` or `maxPages`, which pick the pages.
  interact: [...INTERACT_REQUEST_FIELDS],
};

const ms = () => z.number().int().min(0);
/** Shortest stall time a run may set: a job's progress is read at least this often. */
export const MIN_STALL_AFTER_MS = 10_000;
export const MIN_DEADLINE_MS = 10_000;
/** Seven days: the longest a run may be told to wait on a job standing still, or to run. */
const MAX_WAIT_MS = 7 * 24 * 3_600_000;

const RUN_ID_RULE = { error: 'must be 1-128 letters, digits, dot, dash or underscore' };

/** The fields of the input, in order, each built when a run's input has it (lazy-schema.ts). */
export function pipelineFields(parts: ContractParts) {
  return {
    /** Start URL of the site. */
    url: () => parts.httpUrl(),
    /** `crawl`: map → select → crawl, then batch for what the crawl missed; `batch`: batch-scrape every selected URL. */
    mode: () => z.enum(['crawl', 'batch']).default('crawl'),
    /** Stages switched off are reported as `skipped`. */
    stages: () => z.strictObject(Object.fromEntries(STAGES.map((s) => [s, z.boolean().optional()])) as Record<StageName, z.ZodOptional<z.ZodBoolean>>).optional(),
    /** Document store run id; defaults to the workflow id. */
    runId: () => z.string().regex(/^[A-Za-z0-9._-]{1,128}$/, RUN_ID_RULE).optional(),
    /** The customer this run is for: its fairness key, search attribute, metrics label and monthly budget. */
    tenant: () => tenantSchemaOf().optional(),
    /** Temporal priority of the run's tasks: 1 (first) to 5 (last); default 3. */
    priorityKey: () => priorityKeySchemaOf().optional(),
    /** The NAME of the API key the run is billed with (its team), resolved by the worker; unset: the worker's WEBDATA_API_KEY. */
    apiKeyRef: () => apiKeyRefSchemaOf().optional(),
    map: () => parts.map().optional(),
    select: () => z.strictObject({
      include: parts.patternList().optional(),
      exclude: parts.patternList().optional(),
      /** Orders selected URLs by relevance to this text (map's own ranking). */
      search: z.string().min(1).optional(),
      limit: z.number().int().min(1).max(100_000).optional(),
    }).optional(),
    crawl: () => parts.crawl().optional(),
    batch: () => z.strictObject({
      scrapeOptions: parts.scrapeOptions().optional(),
      maxConcurrency: parts.batchMaxConcurrency(),
    }).optional(),
    /** The interact request (its fields and rule from the contract) and which stored pages get it. */
    interact: () => parts.interact({
      /** Regex tested against each stored page URL; matching pages get the follow-up. */
      match: parts.pathPattern(),
      maxPages: z.number().int().min(1).max(100).default(3),
    }).optional(),
    /**
     * The `agent` stage: one agent job (POST /v2/agent) after the pages are stored. The fields of
     * the agent request (no webhook: the stage polls), plus `match` to hand it pages this run stored.
     */
    agent: () => parts.agent({
      /** Regex tested against each stored page URL: matching pages (up to `maxUrls`) join `urls`. */
      match: parts.pathPattern().optional(),
      maxUrls: z.number().int().min(1).max(MAX_AGENT_URLS).default(10),
    }).superRefine((value, ctx) => {
      if (value.strictConstrainToURLs === true && value.urls === undefined && value.match === undefined) {
        ctx.addIssue({ code: 'custom', path: ['urls'], message: 'urls or match is required when strictConstrainToURLs is true' });
      }
    }).optional(),
    support: () => z.strictObject({
      /** Lowest confidence whose fixParameters are applied. */
      minConfidence: z.enum(['high', 'medium']).default('medium'),
      fixableFields: z.strictObject({
        crawl: z.array(z.string()).optional(),
        batch: z.array(z.string()).optional(),
        interact: z.array(z.string()).optional(),
      }).optional(),
    }).optional(),
    /**
     * Share the API team fairly with every other run of the fleet (docs/tenants.md, "Many tenants"):
     * each crawl or batch job waits for a share of the team's concurrency from the team's governor
     * workflow and starts with maxConcurrency = that share; a batch starts in chunks of `chunkPages`.
     */
    governor: () => z.strictObject({
      /** The team's concurrency; unset: the service's GET /v2/team/queue-status maxConcurrency. */
      teamConcurrency: z.number().int().min(1).max(10_000).optional(),
      /** URLs per batch job: a tenant who arrives later gets a share when a chunk ends. */
      chunkPages: z.number().int().min(1).max(100_000).default(100),
      /** A share its run stops renewing (its workers gone) returns to the team after this long. */
      leaseTtlMs: z.number().int().min(5_000).max(3_600_000).default(DEFAULT_LEASE_TTL_MS),
      /**
       * Shares may add up to this many times the team's concurrency, no job above the team's: jobs
       * overlap their start and end with other jobs' pages, the service's team limit still holds.
       */
      overcommit: z.number().min(1).max(MAX_OVERCOMMIT).default(DEFAULT_OVERCOMMIT),
    }).optional(),
    budget: () => z.strictObject({
      /** Credits this run may spend: at least 1, or 0 to wait (waitForRaiseMs) for a `raiseBudget`. */
      credits: z.number().int().min(0),
      /** Optional cap on the team's credits this calendar month (from the historical usage endpoint). */
      monthlyCap: z.number().int().min(0).optional(),
      /** How long a stage that does not fit waits for a `raiseBudget` update before it is skipped. */
      waitForRaiseMs: ms().default(0),
      /**
       * `clamp` (default) shrinks a job to what fits before it starts; `stop` starts it as
       * configured and cancels it when its own `creditsUsed` reaches what is left.
       */
      strategy: z.enum(['clamp', 'stop']).default('clamp'),
    }).superRefine((budget, ctx) => {
      // A budget of 0 that waits for nothing could do nothing: every stage would be skipped.
      if (budget.credits < MIN_BUDGET_CREDITS && budget.waitForRaiseMs === 0) {
        ctx.addIssue({ code: 'custom', path: ['credits'], message: `must be at least ${MIN_BUDGET_CREDITS} (0 only with waitForRaiseMs, to wait for raiseBudget)` });
      }
    }).optional(),
    /**
     * Store pages robots.txt disallows. By default no stage stores such a page (the pipeline checks
     * robots.txt itself: scrape and batch scrape do not). Sent to the crawl as ignoreRobotsTxt
     * (an enterprise feature: 403 for teams without it); the pipeline's own check is dropped only
     * after the service accepted such a crawl.
     */
    ignoreRobotsTxt: () => z.boolean().optional(),
    /**
     * Change reports: this run compares each page with the previous completed run of `series`
     * (new, changed, unchanged, removed), stores only new and changed pages (unchanged ones as a
     * reference to the earlier copy) and keeps a unified diff per changed page. Scheduled runs
     * get `series` = the schedule id unless set. `webhookUrl` receives the signed summary.
     */
    changes: () => z.strictObject({
      series: z.string().regex(/^[A-Za-z0-9._-]{1,128}$/, RUN_ID_RULE),
      webhookUrl: parts.httpUrl().optional(),
    }).optional(),
    /** Webhook receiver for job-level events; polling still guarantees completion. */
    webhookUrl: () => parts.httpUrl().optional(),
    /**
     * Recorded by the client that starts the run, from its deployment's setting (the caller may
     * not set it: startPipeline refuses that): the private hosts allowed (`host` or `host:port`),
     * or `true`, the blanket allowance (what runs started before the list recorded). The workflow
     * cannot read the worker's environment deterministically, so its own address check trusts what
     * the starting client recorded; the worker still applies its own setting to every request and
     * fetch it makes.
     */
    allowPrivateAddresses: () => z.union([z.boolean(), z.array(z.string()).max(100)]).optional().superRefine((value, ctx) => {
      try {
        addressAllowanceOf(value, 'entries');
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
      }
    }),
    /**
     * How long a job the run waits on (crawl, batch scrape) may show no progress (its completed
     * count does not move) before it is declared stalled: cancelled, collected, and what it did
     * not store recovered by one new job. Default: 5 minutes, longer for a crawl with `delay`
     * (progress-rule.ts); the starting client records WEBDATA_STALL_AFTER_MS here when set.
     */
    stallAfterMs: () => ms().min(MIN_STALL_AFTER_MS).max(MAX_WAIT_MS).optional(),
    /**
     * The run stops waiting this long after it started: it cancels the job it waits on, keeps what
     * was stored, skips the stages left and ends `partial` (or `failed` with nothing stored).
     */
    deadlineMs: () => ms().min(MIN_DEADLINE_MS).max(MAX_WAIT_MS).optional(),
    polling: () => z.strictObject({
      minIntervalMs: ms().min(200).default(1_000),
      maxIntervalMs: ms().min(200).default(30_000),
    }).optional(),
  };
}

/** Fields built for every input: required, or acting on absence (a default). */
export const ALWAYS_BUILT = ['url', 'mode'] as const;

export class PipelineInputError extends Error {
  readonly issues: Array<{ path: string; message: string }>;
  constructor(issues: Array<{ path: string; message: string }>) {
    super(`invalid pipeline input: ${issues.map((i) => `${i.path || '(root)'}: ${i.message}`).join('; ')}`);
    this.name = 'PipelineInputError';
    this.issues = issues;
  }
}

export interface AddressPolicy {
  /**
   * Which loopback, private, link-local and other non-public hosts URLs may name: a list of
   * `host` or `host:port`, `false` none, `true` all (the blanket allowance).
   */
  allowPrivateAddresses: PrivateAddressOption;
  /** The deployment's stall time, recorded in a run's input that sets none. */
  stallAfterMs?: number;
}

/**
 * The schema's rules (the schema for this input from `schemaFor`), then (unless the policy allows
 * them) every URL's host against the private ranges. Each issue is one line naming the field and
 * the rule.
 */
export function checkWith(schema: z.ZodType, input: unknown, policy: AddressPolicy): PipelineConfig {
  // jitless: zod would compile a parser (new Function) for each object on its first parse, which
  // every run pays again and which one parse never earns back.
  const parsed = schema.safeParse(input, { jitless: true });
  if (!parsed.success) throw new PipelineInputError(formatIssues(parsed.error));
  let allowance;
  try {
    allowance = addressAllowanceOf(policy.allowPrivateAddresses, ALLOW_PRIVATE_ADDRESSES_ENV);
  } catch (err) {
    throw new PipelineInputError([{ path: 'allowPrivateAddresses', message: (err as Error).message }]);
  }
  const issues = privateUrlIssues(parsed.data, allowance);
  if (issues.length > 0) throw new PipelineInputError(issues);
  return parsed.data as PipelineConfig;
}

export function stageEnabled(config: PipelineConfig, stage: StageName): boolean {
  return config.stages?.[stage] !== false;
}

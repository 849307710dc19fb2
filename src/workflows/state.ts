// The pipeline's durable state: everything a continue-as-new carries to the next run.
import type { PipelineConfig, StageName } from './input.js';
import type { ChangeReport, CollectCursor, JobKind, StoreReference } from '../activities/types.js';

/** `cancelled`: the stage was running when the run was cancelled. */
export type StageStatus = 'pending' | 'running' | 'completed' | 'failed' | 'skipped' | 'repaired' | 'cancelled';

export interface StageReport {
  status: StageStatus;
  /** Why the stage was skipped or failed. */
  reason?: string;
  jobId?: string;
  documents?: number;
  /** A job stage: the job's own total while it runs (pages a crawl knows of so far, a batch's URLs). */
  total?: number;
  failures?: number;
  urls?: number;
  credits: number;
  /** URLs not scraped or not stored, by reason (`robots`: disallowed by robots.txt). */
  skipped?: { robots?: number };
  /** Support answer applied (or refused) for this stage. */
  support?: { answer: string; confidence: string; applied: boolean; fixParameters: Record<string, unknown> | null; why?: string };
  ref?: StoreReference;
  /** Interact: the first 200 characters of each page's output (the whole result is in the store). */
  outputs?: Array<{ url: string; preview: string }>;
  /**
   * Parts this service does not offer (its route is missing, e.g. `batch scrape errors` or
   * `support ask` on the open-source server): not done, reported, never a failure of a stage
   * that has its data.
   */
  notAvailable?: string[];
  /** Other facts of the stage worth a line in the report (a job started without idempotency key). */
  notes?: string[];
  /**
   * The stage's job was lost (the service answered 404 for it: restarted, or its results expired
   * before they were collected) and one new job got what it had not stored. `pages`: documents
   * the new job stored; `lostPages`/`lostCredits`: what the lost job had stored and is estimated
   * to have cost (the service no longer answers for it, so `creditsEstimated`).
   */
  recovered?: RecoveredJob;
  /**
   * While the stage's job runs: its last progress (completed count) and since when it has not
   * moved (ISO time), so `webdata status` and the UI can say "no progress for N min" before the
   * progress rule fires at `stallAfterMs`. Absent once the job ended.
   */
  progress?: { completed: number; since: string; stallAfterMs: number };
  /** The stage's job stopped moving and was declared stalled (progress-rule.ts): what happened. */
  stalled?: StalledJob;
}

export interface StalledJob {
  jobId: string;
  /** The job's completed count when it stopped moving, and its total then. */
  completed: number;
  total: number;
  /** How long it stood still before it was declared stalled, and when that was (ISO). */
  stillForMs: number;
  declaredAt: string;
  /** What the cancel answered (`cancelled`, `finished`, `gone`, or `refused: ...`). */
  cancel: string;
  /** Documents it stored (collected after the cancel). */
  stored: number;
}

export interface RecoveredJob {
  /** The job recovered (lost, or stalled and cancelled). */
  lostJob: string;
  /** Absent in runs recorded before stalled jobs were recovered: `lost`. */
  why?: 'lost' | 'stalled';
  /** Absent while no new job was needed (the lost job had stored every page asked for). */
  newJob?: string;
  pages: number;
  lostPages: number;
  lostCredits: number;
  /** `lostCredits` is an estimate (the service no longer answers for the job); false: as it billed. */
  creditsEstimated: boolean;
}

export interface CreditReport {
  budget: number | null;
  spent: number;
  byStage: Partial<Record<StageName, number>>;
  /** Limits clamped or stages skipped for budget, in order. */
  events: string[];
  /**
   * Credits in `spent` the service could not state (a lost job's): one line each, naming the
   * stage, the job, the figure and what it is estimated from. Absent: every figure is billed.
   */
  estimated?: string[];
}

/** A job the pipeline is waiting on; carried through continue-as-new. */
export interface ActiveJob {
  kind: JobKind;
  stage: StageName;
  jobId: string;
  /** Credits the job may use before the budget watch cancels it; null = unbounded. */
  allowance: number | null;
  tight: boolean;
  /** The job's own credits at the last status read, counted in the run's total if the stage fails. */
  creditsSeen?: number;
  /**
   * The follower's place in the job's results, handed over at continue-as-new; `atEnd`: why
   * this service is collected once at the end instead (it ignores `skip`).
   */
  follow?: { cursor: CollectCursor; atEnd?: string };
  /** Credits of this job the run already counted (before URLs were appended to it): spent once. */
  spentBefore?: number;
  /** What earlier jobs of the stage gave (an append that fell back to a new job): added to the report. */
  earlier?: { documents: number; failures: number; credits: number };
  /** A job recovering a lost one: the lost job's stored pages are not stored again. */
  skipStoredOf?: string[];
  /** Its last progress: the completed count and the workflow time it last moved (ms). */
  progress?: { completed: number; movedAt: number };
}

/** A batch the budget clamped: URLs left join its job (appendToId) when the budget is raised. */
export interface BatchAppendState {
  /** URLs the stage wanted, and how many of them went to a job so far (list order). */
  wanted: number;
  taken: number;
  /** Additions made (each with its own idempotency key). */
  additions: number;
  /** The service has no append: later additions start a new job at once. */
  noAppend?: boolean;
  /** What the stage's jobs before the current one gave (after a fallback to a new job). */
  earlier?: { documents: number; failures: number; credits: number };
}

export interface PipelineState {
  config: PipelineConfig;
  runId: string;
  /** Index into the ordered stage list of the next stage to run. */
  next: number;
  reports: Partial<Record<StageName, StageReport>>;
  credits: CreditReport;
  jobs: Record<string, string>;
  /** Store lists made by earlier stages. */
  lists: { mapped?: string; selected?: string; missing?: string };
  selectedCount?: number;
  pathPatterns?: string[];
  activeJob?: ActiveJob;
  batchAppend?: BatchAppendState;
  /** Stages whose job the service cut at the team's credits (limit-cut.ts): the run is partial. */
  limitCuts?: StageName[];
  /** Stages already retried after a support answer (at most once each). */
  retried: StageName[];
  continuedAsNew: number;
  idempotencyKeys: Record<string, string>;
  /**
   * The last webhook deliveries acted on (their `webhookId`), oldest first and bounded: a
   * delivery sent again (a receiver restarted, a second receiver) is ignored, also after a
   * continue-as-new.
   */
  seenWebhooks?: string[];
  /** The service accepted a crawl with ignoreRobotsTxt: the pipeline's own robots check is off. */
  robotsIgnored?: boolean;
  /** The agent stage's job while it runs (carried through continue-as-new); `maxCredits` as sent. */
  agentJob?: { jobId: string; maxCredits: number | null; creditsSeen?: number };
  /** A governed batch's progress (input.governor): chunks done and what they stored, carried through continue-as-new. */
  chunks?: { done: number; documents: number; failures: number; credits: number };
  /** Workflow time the run (its first execution) started, ms: the input's deadlineMs counts from it. */
  startedAt?: number;
  /** The run's deadline passed: when, and what was still running (the run ends partial). */
  deadline?: { reachedAt: string; stage: StageName };
  /** A run of a series (input.changes): the run it compares with, then its change report. */
  changes?: { previousRunId: string | null; report?: ChangeReport };
  /** The run asked its tenant's ledger for a slot of its runs in flight ('held' once granted): given back when it ends. */
  tenantSlot?: 'asked' | 'held';
  /**
   * The client asked for the host to stay out of visibility (its memo, on the first run only: a
   * continue-as-new does not carry the memo, the state does).
   */
  hostHidden?: boolean;
}

export interface PipelineResult {
  status: 'completed' | 'partial' | 'failed' | 'cancelled';
  runId: string;
  url: string;
  stages: Partial<Record<StageName, StageReport>>;
  credits: CreditReport;
  documents: number;
  jobs: Record<string, string>;
  store: StoreReference;
  continuedAsNew: number;
  /** A run of a series: what changed since the series' previous completed run. */
  changes?: ChangeReport;
}

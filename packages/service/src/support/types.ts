// Shapes shared by the support engine: the parts of the answer envelope (reference 2.5,
// webdata-contract SupportAnswer), the case under investigation and the known causes.
import type { SupportAnswer } from 'webdata-contract';
import type { JobInspector, JobView } from '../core/jobs.js';
import type { ServiceContext } from '../core/service.js';
import type { TeamConfig } from '../core/teams.js';
import type { ResourceFetcher } from '../crawler/fetcher.js';
import type { TimeBudget } from './time-budget.js';

export type Confidence = SupportAnswer['confidence'];
export type Validation = NonNullable<SupportAnswer['validation']>;
export type Feedback = NonNullable<SupportAnswer['feedback']>;

/** What a cause concludes (the envelope without requestId and durationMs). */
export interface Finding {
  cause: string;
  answer: string;
  confidence: Confidence;
  fixParameters: Record<string, unknown> | null;
  validation: Validation | null;
  feedback: Feedback | null;
}

export interface Case {
  ctx: ServiceContext;
  team: TeamConfig;
  inspector: JobInspector;
  question: string;
  rationale?: string;
  context?: Record<string, unknown>;
  /** The job under investigation, in the caller's team. */
  job?: JobView;
  timeBudget: TimeBudget;
  /** Raw fetches for probes (robots.txt, sitemaps, dry crawls): no engine, no credits. */
  fetcher: ResourceFetcher;
  /** Steps taken, in order: the envelope's feedback.attempted. */
  trail: string[];
  /** The best conclusion so far, answered when the budget runs out. */
  partial?: Finding;
}

export interface Cause {
  id: string;
  /** Question words that make this cause the first to try. */
  hint?: RegExp;
  /** A cheap check without I/O: does this cause fit the case? */
  applies(c: Case): boolean;
  /** The finding, with the fix and its validation (may probe, within the budget); undefined when probing rules the cause out. */
  diagnose(c: Case): Promise<Finding | undefined>;
}

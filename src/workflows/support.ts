// Self-repair: on a failed stage, ask the support endpoint and apply its fixParameters once
// when the confidence is high enough and the fix only touches fields the stage allows.
import type { SupportAnswer } from '../activities/types.js';
import { DEFAULT_FIXABLE_FIELDS } from './input-fields.js';
import type { PipelineConfig } from './input.js';

export type FixableStage = keyof typeof DEFAULT_FIXABLE_FIELDS;

const RANK = { low: 0, medium: 1, high: 2 } as const;

export interface FixDecision {
  apply: boolean;
  why: string;
  fix: Record<string, unknown>;
}

export function decideFix(config: PipelineConfig, stage: FixableStage, answer: SupportAnswer): FixDecision {
  const fix = answer.fixParameters ?? {};
  const minConfidence = config.support?.minConfidence ?? 'medium';
  if (!answer.fixParameters || Object.keys(fix).length === 0) return { apply: false, why: 'no fixParameters', fix };
  if (RANK[answer.confidence] < RANK[minConfidence]) {
    return { apply: false, why: `confidence ${answer.confidence} is below ${minConfidence}`, fix };
  }
  const allowed = config.support?.fixableFields?.[stage] ?? DEFAULT_FIXABLE_FIELDS[stage];
  const refused = Object.keys(fix).filter((k) => !allowed.includes(k));
  if (refused.length > 0) return { apply: false, why: `fix touches fields not allowed for ${stage}: ${refused.join(', ')}`, fix };
  return { apply: true, why: `confidence ${answer.confidence}`, fix };
}

/** The stage's options with the fix merged in (null values remove a field). */
export function applyFix<T extends Record<string, unknown>>(options: T | undefined, fix: Record<string, unknown>): T {
  const merged: Record<string, unknown> = { ...(options ?? {}) };
  for (const [key, value] of Object.entries(fix)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged as T;
}

/** What a failed stage tells support about itself. */
export interface FailedStage {
  stage: string;
  reason: string;
  /** The job (or scrape) the stage started, when it started one. */
  jobId?: string;
  /** The site the pipeline runs on. */
  url: string;
}

const JOB_KIND: Record<string, string> = { crawl: 'crawl', batch: 'batch scrape', interact: 'scrape' };

/**
 * The question about a failed stage. It names the job and the site: support diagnoses the job
 * a question names, and a reason alone (an activity failure carries none) left it nothing to look at.
 */
export function supportQuestion(failed: FailedStage): string {
  const subject = failed.jobId ? `${JOB_KIND[failed.stage] ?? failed.stage} job ${failed.jobId} on ${failed.url}` : `run on ${failed.url}`;
  return `The ${failed.stage} stage of my pipeline (${subject}) failed: ${failed.reason}. What should I change?`.slice(0, 8000);
}

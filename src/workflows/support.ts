// Self-repair: on a failed stage, ask the support endpoint and apply its fixParameters once
// when the confidence is high enough and the fix only touches fields the stage allows.
import type { SupportAnswer } from '../activities/types.js';
import { DEFAULT_FIXABLE_FIELDS, type PipelineConfig } from './input.js';

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

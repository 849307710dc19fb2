// What the run report says about a service that lacks routes or refuses the idempotency key
// (the open-source server): facts added to a stage's report, never a failed stage that has its
// data. Pure functions over workflow state (deterministic, no commands).
import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import type { StageReport } from './state.js';

export const NOT_AVAILABLE = 'not available on this service';

/** Records that `what` (an auxiliary route: `batch scrape errors`) is missing on this service. */
export function noteNotAvailable(report: StageReport, what: string): void {
  const list = (report.notAvailable ??= []);
  if (!list.includes(what)) list.push(what);
}

export function addNote(report: StageReport, note: string): void {
  const list = (report.notes ??= []);
  if (!list.includes(note)) list.push(note);
}

/** The message of an activity failure of type `not_available` (a missing route), else undefined. */
export function notAvailableMessage(err: unknown): string | undefined {
  if (!(err instanceof ActivityFailure)) return undefined;
  const cause = err.cause;
  if (cause instanceof ApplicationFailure && cause.type === 'not_available') return cause.message;
  return undefined;
}

/** `type: message` of an activity failure, for a report's reason. */
export function failureText(err: unknown): string {
  if (err instanceof ActivityFailure) {
    const cause = err.cause as { message?: string; type?: string } | undefined;
    return `${cause?.type ?? 'error'}: ${cause?.message ?? err.message}`;
  }
  return err instanceof Error ? err.message : String(err);
}

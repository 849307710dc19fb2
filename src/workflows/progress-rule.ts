// The progress rule: a job the run waits on must move. A service that crashed may keep a job
// `scraping` for good (the open-source server, restarted with its Redis kept, leaves the page in
// flight at the crash unfinished and never ends the job), and a wait on it would last the whole
// retention. Each status read notes the job's completed count; when it has not moved for the
// stall time the job is declared stalled (job.ts cancels it, collects it and recovers the rest).
import type { JobKind, JobSummary } from '../activities/types.js';
import type { PipelineConfig } from './input.js';
import type { ActiveJob, PipelineState, StageReport } from './state.js';

/** The default stall time: a queue that held a job after a restart moved again within ~3 min. */
export const DEFAULT_STALL_AFTER_MS = 5 * 60_000;
/** A crawl with `delay` (seconds between pages) stands still that long per page: 20 pages' worth. */
const DELAY_PAGES = 20;

/**
 * The stall time of a job of the run: the input's, else the default that fits the job, never
 * shorter than two of the run's longest poll intervals (a run that asked to be polled hourly
 * cannot tell a stalled job from a slow one in five minutes).
 */
export function stallAfterMs(config: PipelineConfig, kind: JobKind): number {
  if (config.stallAfterMs !== undefined) return config.stallAfterMs;
  const delaySeconds = kind === 'crawl' ? config.crawl?.delay ?? 0 : 0;
  return Math.max(DEFAULT_STALL_AFTER_MS, delaySeconds * 1_000 * DELAY_PAGES, 2 * (config.polling?.maxIntervalMs ?? 0));
}

/**
 * Notes a status read: the job moved when its completed count changed (or on the first read).
 * Returns how long it has stood still, and shows it on the stage's report.
 */
export function observeProgress(job: ActiveJob, report: StageReport, summary: JobSummary, now: number, stallMs: number): number {
  const last = job.progress;
  if (!last || summary.completed !== last.completed) job.progress = { completed: summary.completed, movedAt: now };
  const progress = job.progress as NonNullable<ActiveJob['progress']>;
  report.progress = { completed: progress.completed, since: new Date(progress.movedAt).toISOString(), stallAfterMs: stallMs };
  return now - progress.movedAt;
}

/** Milliseconds until the job's stall time runs out (at least 1 s: a read comes first). */
export function untilStalled(job: ActiveJob, stallMs: number, now: number): number {
  const movedAt = job.progress?.movedAt ?? now;
  return Math.max(1_000, movedAt + stallMs - now);
}

/** The run's deadline (workflow time, ms), or undefined when it has none. */
export function deadlineOf(state: PipelineState): number | undefined {
  const { deadlineMs } = state.config;
  return deadlineMs !== undefined && state.startedAt !== undefined ? state.startedAt + deadlineMs : undefined;
}

/** "no progress for 3 min" (whole minutes; seconds under one). */
export function stillForText(ms: number): string {
  return ms >= 60_000 ? `${Math.floor(ms / 60_000)} min` : `${Math.floor(ms / 1_000)} s`;
}

/**
 * "no progress for 3 min (job X at 27/28; stalled at 5 min)" once a running job stood still for
 * a minute or half its stall time, whichever comes first; else undefined (reads come up to 30 s
 * apart, so a shorter pause says nothing).
 */
export function noProgressText(report: StageReport, now: number): string | undefined {
  const progress = report.progress;
  if (!progress || report.status !== 'running') return undefined;
  const still = now - Date.parse(progress.since);
  if (!(still >= Math.min(60_000, progress.stallAfterMs / 2))) return undefined;
  const at = report.jobId ? `job ${report.jobId} at ${progress.completed}${report.total ? `/${report.total}` : ''}; ` : '';
  return `no progress for ${stillForText(still)} (${at}stalled at ${stillForText(progress.stallAfterMs)})`;
}

/** A stalled job, for the report: its last progress, how long it stood still, what it stored. */
export function stalledText(report: StageReport): string | undefined {
  const s = report.stalled;
  if (!s) return undefined;
  const recovered = report.recovered?.lostJob === s.jobId && report.recovered.newJob
    ? `; job ${report.recovered.newJob} stored ${report.recovered.pages} more`
    : '';
  return `stalled: job ${s.jobId} at ${s.completed}/${s.total}, no progress for ${stillForText(s.stillForMs)}, cancelled (${s.cancel}) with ${s.stored} pages stored${recovered}`;
}

// Recurring pipelines over Temporal Schedules.
import { ScheduleOverlapPolicy, type Client, type ScheduleDescription, type ScheduleSummary } from '@temporalio/client';
import { webDataPipeline } from '../workflows/pipeline.js';
import { parsePipelineInput, type PipelineInput } from '../workflows/input.js';
import { DEFAULT_TASK_QUEUE, describe, summarize } from './pipeline.js';

export type OverlapPolicy = 'skip' | 'buffer_one' | 'buffer_all' | 'cancel_other' | 'terminate_other' | 'allow_all';

const OVERLAP: Record<OverlapPolicy, ScheduleOverlapPolicy> = {
  skip: ScheduleOverlapPolicy.SKIP,
  buffer_one: ScheduleOverlapPolicy.BUFFER_ONE,
  buffer_all: ScheduleOverlapPolicy.BUFFER_ALL,
  cancel_other: ScheduleOverlapPolicy.CANCEL_OTHER,
  terminate_other: ScheduleOverlapPolicy.TERMINATE_OTHER,
  allow_all: ScheduleOverlapPolicy.ALLOW_ALL,
};

export interface SchedulePipelineOptions {
  scheduleId: string;
  /** A cron expression ("0 3 * * *") or an interval ("6h", "30m", "90 seconds"): exactly one. */
  cron?: string;
  every?: string;
  overlap?: OverlapPolicy;
  taskQueue?: string;
  paused?: boolean;
  note?: string;
  /** Run the schedule over a past range once, right after creating it. */
  backfill?: { start: Date; end: Date };
  /**
   * Each run reports what changed since the schedule's previous completed run (input.changes with
   * `series` = the schedule id, unless the input names one). Default true; false: plain runs.
   */
  trackChanges?: boolean;
}

export async function schedulePipeline(client: Client, input: PipelineInput, options: SchedulePipelineOptions): Promise<string> {
  const tracked: PipelineInput = options.trackChanges === false || input.changes
    ? input
    : { ...input, changes: { series: options.scheduleId } };
  const config = parsePipelineInput(tracked);
  if ((options.cron === undefined) === (options.every === undefined)) {
    throw new Error('schedule: exactly one of cron or every is required');
  }
  const handle = await client.schedule.create({
    scheduleId: options.scheduleId,
    spec: options.cron ? { cronExpressions: [options.cron] } : { intervals: [{ every: options.every as string }] },
    action: {
      type: 'startWorkflow',
      workflowType: webDataPipeline,
      args: [tracked],
      taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
      workflowId: `${options.scheduleId}-run`,
      staticSummary: summarize(config),
      staticDetails: describe(config),
    },
    policies: { overlap: OVERLAP[options.overlap ?? 'skip'], catchupWindow: '1 minute' },
    state: { paused: options.paused ?? false, note: options.note },
  });
  if (options.backfill) {
    await handle.backfill({ start: options.backfill.start, end: options.backfill.end, overlap: OVERLAP[options.overlap ?? 'allow_all'] });
  }
  return handle.scheduleId;
}

export async function listSchedules(client: Client): Promise<ScheduleSummary[]> {
  const out: ScheduleSummary[] = [];
  for await (const s of client.schedule.list()) out.push(s);
  return out;
}

export async function describeSchedule(client: Client, scheduleId: string): Promise<ScheduleDescription> {
  return client.schedule.getHandle(scheduleId).describe();
}

export async function pauseSchedule(client: Client, scheduleId: string, note?: string): Promise<void> {
  await client.schedule.getHandle(scheduleId).pause(note);
}

export async function unpauseSchedule(client: Client, scheduleId: string, note?: string): Promise<void> {
  await client.schedule.getHandle(scheduleId).unpause(note);
}

export async function deleteSchedule(client: Client, scheduleId: string): Promise<void> {
  await client.schedule.getHandle(scheduleId).delete();
}

/**
 * Starts one run of a schedule now (whatever its spec or pause) and returns that run's workflow
 * id, once the schedule reports the action taken (a deadline of `timeoutMs`, default 60 s).
 */
export async function triggerSchedule(client: Client, scheduleId: string, options: { timeoutMs?: number } = {}): Promise<string> {
  const handle = client.schedule.getHandle(scheduleId);
  const before = (await handle.describe()).info.numActionsTaken;
  await handle.trigger(ScheduleOverlapPolicy.ALLOW_ALL);
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    const { info } = await handle.describe();
    const started = info.recentActions.at(-1)?.action.workflow.workflowId;
    if (info.numActionsTaken > before && started) return started;
    if (Date.now() > deadline) throw new Error(`schedule ${scheduleId}: the triggered run did not start within ${options.timeoutMs ?? 60_000} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

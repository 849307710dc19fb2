// Recurring pipelines over Temporal Schedules.
import { ScheduleOverlapPolicy, type Client, type ScheduleDescription, type ScheduleOptionsStartWorkflowAction, type ScheduleSummary } from '@temporalio/client';
import type { Priority } from '@temporalio/common';
import { PIPELINE_WORKFLOW_TYPE } from '../workflows/definitions.js';
import type { webDataPipeline } from '../workflows/pipeline.js';
import { parsePipelineInput, recordAddressPolicy, type PipelineInput } from '../workflows/input.js';
import { TENANT } from '../search-attributes.js';
import { DEFAULT_TENANT, priorityOf } from '../shared/tenant.js';
import { addressPolicy, type AddressPolicyOption } from './address-policy.js';
import { DEFAULT_TASK_QUEUE, describe, showsHost, summarize } from './pipeline.js';
import { HOST_IN_VISIBILITY_MEMO } from '../shared/visibility.js';
import { withSearchAttributeHint } from '../coordination/search-attribute-check.js';

export type OverlapPolicy = 'skip' | 'buffer_one' | 'buffer_all' | 'cancel_other' | 'terminate_other' | 'allow_all';

const OVERLAP: Record<OverlapPolicy, ScheduleOverlapPolicy> = {
  skip: ScheduleOverlapPolicy.SKIP,
  buffer_one: ScheduleOverlapPolicy.BUFFER_ONE,
  buffer_all: ScheduleOverlapPolicy.BUFFER_ALL,
  cancel_other: ScheduleOverlapPolicy.CANCEL_OTHER,
  terminate_other: ScheduleOverlapPolicy.TERMINATE_OTHER,
  allow_all: ScheduleOverlapPolicy.ALLOW_ALL,
};

export interface SchedulePipelineOptions extends AddressPolicyOption {
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
  /** The customer every run of this schedule is for; overrides input.tenant. */
  tenant?: string;
  /** The target host in the WebdataTargetHost search attribute (see StartPipelineOptions.hostInVisibility). */
  hostInVisibility?: boolean;
}

export async function schedulePipeline(client: Client, input: PipelineInput, options: SchedulePipelineOptions): Promise<string> {
  // Validated with the rest of the input below (tenant: its rule, one line).
  const policy = addressPolicy(options);
  const named: PipelineInput = options.tenant === undefined ? input : { ...input, tenant: options.tenant };
  const tracked: PipelineInput = recordAddressPolicy(options.trackChanges === false || named.changes
    ? named
    : { ...named, changes: { series: options.scheduleId } }, policy);
  const config = parsePipelineInput(tracked, policy);
  if ((options.cron === undefined) === (options.every === undefined)) {
    throw new Error('schedule: exactly one of cron or every is required');
  }
  // The SDK's types leave `priority` out of a schedule's action, but it sends it (1.24).
  const action: ScheduleOptionsStartWorkflowAction<typeof webDataPipeline> & { priority: Priority } = {
    type: 'startWorkflow',
    workflowType: PIPELINE_WORKFLOW_TYPE,
    args: [tracked],
    taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
    workflowId: `${options.scheduleId}-run`,
    staticSummary: summarize(config),
    staticDetails: describe(config),
    priority: priorityOf(config),
    typedSearchAttributes: [{ key: TENANT, value: config.tenant ?? DEFAULT_TENANT }],
    ...(showsHost(client, options.hostInVisibility) ? {} : { memo: { [HOST_IN_VISIBILITY_MEMO]: false } }),
  };
  const handle = await withSearchAttributeHint(client, () => client.schedule.create({
    scheduleId: options.scheduleId,
    spec: options.cron ? { cronExpressions: [options.cron] } : { intervals: [{ every: options.every as string }] },
    action,
    policies: { overlap: OVERLAP[options.overlap ?? 'skip'], catchupWindow: '1 minute' },
    state: { paused: options.paused ?? false, note: options.note },
  }));
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
 *
 * A schedule names each run `<workflowId>-<scheduled time, to the second>`, so a trigger in the
 * same second as the schedule's last action would be refused as a duplicate id and start
 * nothing. The trigger waits for the next second, and only a run with a new id counts as started.
 */
export async function triggerSchedule(client: Client, scheduleId: string, options: { timeoutMs?: number } = {}): Promise<string> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  const handle = client.schedule.getHandle(scheduleId);
  const { info } = await handle.describe();
  const before = info.numActionsTaken;
  const last = info.recentActions.at(-1);
  const lastId = last?.action.workflow.workflowId;
  if (last) {
    // The next whole second after the last action's, with a margin for the server's clock.
    const free = Math.floor(last.scheduledAt.getTime() / 1000) * 1000 + 1000 + 100;
    if (Date.now() < free) await new Promise((r) => setTimeout(r, free - Date.now()));
  }
  await handle.trigger(ScheduleOverlapPolicy.ALLOW_ALL);
  for (;;) {
    const now = (await handle.describe()).info;
    const started = now.recentActions.at(-1)?.action.workflow.workflowId;
    if (now.numActionsTaken > before && started && started !== lastId) return started;
    if (Date.now() > deadline) throw new Error(`schedule ${scheduleId}: the triggered run did not start within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

// Measures a workflow's history across its continue-as-new chain: events, serialized bytes
// (the protobuf encoding of `handle.fetchHistory()`, the form the server stores and limits)
// and the largest payload, with the event that carried it.
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import type { temporal as protoTypes } from '@temporalio/proto';

// A CommonJS module: its named exports are not visible to ESM import, the default is.
const { temporal } = proto;

type HistoryEvent = protoTypes.api.history.v1.IHistoryEvent;

/** An event's server time, epoch ms. */
export function eventMs(event: Pick<HistoryEvent, 'eventTime'> | undefined): number {
  const t = event?.eventTime;
  return t ? Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6) : Number.NaN;
}

export interface LargestPayload {
  bytes: number;
  /** Event type that carried it, e.g. ActivityTaskCompleted. */
  event: string;
}

export interface RunHistory {
  runId: string;
  events: number;
  bytes: number;
  largest: LargestPayload;
  /** Whether the server suggested continue-as-new to this run. */
  suggested: boolean;
  /** Activity attempts after the first, by activity type, with why the attempt before ended. */
  retries: Array<{ type: string; attempt: number; cause: string }>;
}

export interface ChainHistory {
  runs: RunHistory[];
  events: number;
  bytes: number;
  largest: LargestPayload;
  /** Runs that ended in continue-as-new. */
  continuedAsNew: number;
  retries: RunHistory['retries'];
}

export async function historyChain(client: Client, workflowId: string, firstRunId: string): Promise<ChainHistory> {
  const runs: RunHistory[] = [];
  let runId: string | undefined = firstRunId;
  while (runId && runs.length < 10_000) {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const events = history.events ?? [];
    let largest: LargestPayload = { bytes: 0, event: '—' };
    let next: string | undefined;
    let suggested = false;
    const types = new Map<string, string>();
    const retries: RunHistory['retries'] = [];
    for (const event of events) {
      const scheduled = event.activityTaskScheduledEventAttributes;
      if (scheduled) types.set(String(event.eventId), scheduled.activityType?.name ?? '?');
      const started = event.activityTaskStartedEventAttributes;
      if (started && (started.attempt ?? 1) > 1) {
        retries.push({ type: types.get(String(started.scheduledEventId)) ?? '?', attempt: started.attempt ?? 0, cause: started.lastFailure?.message ?? '?' });
      }
      const size = largestIn(event);
      if (size > largest.bytes) largest = { bytes: size, event: eventName(event) };
      if (event.workflowTaskStartedEventAttributes?.suggestContinueAsNew) suggested = true;
      next ??= event.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
    }
    runs.push({ runId, events: events.length, bytes: temporal.api.history.v1.History.encode(history).finish().length, largest, suggested, retries });
    runId = next;
  }
  const largest = runs.reduce<LargestPayload>((a, r) => (r.largest.bytes > a.bytes ? r.largest : a), { bytes: 0, event: '—' });
  return {
    runs,
    events: runs.reduce((n, r) => n + r.events, 0),
    bytes: runs.reduce((n, r) => n + r.bytes, 0),
    largest,
    continuedAsNew: runs.length - 1,
    retries: runs.flatMap((r) => r.retries),
  };
}

function eventName(event: HistoryEvent): string {
  const name = temporal.api.enums.v1.EventType[event.eventType ?? 0] ?? String(event.eventType);
  return name.replace(/^EVENT_TYPE_/, '').toLowerCase().replace(/(^|_)([a-z])/g, (_m, _s: string, c: string) => c.toUpperCase());
}

/** Size of the largest payload anywhere in the event: data plus metadata bytes. */
function largestIn(value: unknown, depth = 0): number {
  if (!value || typeof value !== 'object' || depth > 12) return 0;
  if (value instanceof Uint8Array) return 0;
  const obj = value as Record<string, unknown>;
  let best = 0;
  if (obj.data instanceof Uint8Array && (obj.metadata === undefined || typeof obj.metadata === 'object')) {
    let size = obj.data.length;
    for (const [k, v] of Object.entries((obj.metadata ?? {}) as Record<string, unknown>)) size += k.length + (v instanceof Uint8Array ? v.length : 0);
    best = size;
  }
  for (const v of Object.values(obj)) {
    if (Array.isArray(v)) for (const item of v) best = Math.max(best, largestIn(item, depth + 1));
    else best = Math.max(best, largestIn(v, depth + 1));
  }
  return best;
}

// Local activities in a run's history. The pipeline's job starts are local activities
// (src/workflows/activities.ts): each is one marker event, not the scheduled, started and
// completed events of an activity on the task queue. The marker holds the activity's type and
// attempt, its result and the call's summary; not its input.
import type { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

export const LOCAL_ACTIVITY_MARKER = 'core_local_activity';

export interface LocalActivityCall {
  type: string;
  attempt: number;
  /** The activity's result (undefined when it failed). */
  result: unknown;
  /** The summary the workflow gave the call (what the Temporal UI shows). */
  summary: string | undefined;
  /** When the workflow scheduled it, the worker's clock (epoch ms; NaN if the marker has none). */
  scheduledAt: number;
  /** Its workflow task's start plus the activity's run time, as sdk-core records it (epoch ms). */
  completedAt: number;
  event: HistoryEvent;
}

/** A protobuf Timestamp in the marker's JSON ({seconds, nanos}), epoch ms. */
const epochMs = (t: { seconds?: number | string; nanos?: number } | null | undefined): number =>
  t ? Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6) : Number.NaN;

const json = (data: Uint8Array | null | undefined): unknown => (data ? JSON.parse(Buffer.from(data).toString('utf8')) : undefined);

/** The local activities a history recorded, in order; `type` keeps only those of that type. */
export function localActivities(events: HistoryEvent[] | null | undefined, type?: string): LocalActivityCall[] {
  const calls: LocalActivityCall[] = [];
  for (const event of events ?? []) {
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== LOCAL_ACTIVITY_MARKER) continue;
    type Time = { seconds?: number | string; nanos?: number } | null;
    const data = json(marker.details?.data?.payloads?.[0]?.data) as { activity_type?: string; attempt?: number; original_schedule_time?: Time; complete_time?: Time } | undefined;
    const call: LocalActivityCall = {
      type: data?.activity_type ?? '?',
      attempt: data?.attempt ?? 1,
      result: json(marker.details?.result?.payloads?.[0]?.data),
      summary: json(event.userMetadata?.summary?.data) as string | undefined,
      scheduledAt: epochMs(data?.original_schedule_time),
      completedAt: epochMs(data?.complete_time),
      event,
    };
    if (type === undefined || call.type === type) calls.push(call);
  }
  return calls;
}

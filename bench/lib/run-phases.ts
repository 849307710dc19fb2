// Where a pipeline run's time went, read from its history: before its job's first share was
// asked for (map, select, filters), in the governor's line (an activity waiting in it, or from an
// ask by signal to the governor's notice), its jobs (start to the follower's
// end), and after (collect, report). The event times are the server's.
import type { Client } from '@temporalio/client';
import { eventMs as ms } from './history.js';

export interface RunPhases {
  beforeMs: number;
  lineMs: number;
  jobMs: number;
  afterMs: number;
  /** The activities before the job, longest first: `type seconds`, and the time in none of them. */
  before: string;
}

export async function runPhases(client: Client, workflowId: string): Promise<RunPhases> {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const scheduled = new Map<string, { type: string; at: number }>();
  const spans: Array<{ type: string; from: number; to: number }> = [];
  // A run that asks by signal waits in the workflow: in line from its ask until the governor's notice.
  let asked: number | undefined;
  for (const e of events) {
    const s = e.activityTaskScheduledEventAttributes;
    if (s) scheduled.set(String(e.eventId), { type: s.activityType?.name ?? '', at: ms(e) });
    if (s?.activityType?.name === 'askTeamShare') asked ??= ms(e);
    if (e.workflowExecutionSignaledEventAttributes?.signalName === 'webdataShareGranted' && asked !== undefined) {
      spans.push({ type: 'line', from: asked, to: ms(e) });
      asked = undefined;
    }
    const done = e.activityTaskCompletedEventAttributes ?? e.activityTaskFailedEventAttributes ?? e.activityTaskCanceledEventAttributes;
    if (done) {
      const from = scheduled.get(String(done.scheduledEventId));
      if (from) spans.push({ type: from.type, from: from.at, to: ms(e) });
    }
  }
  const start = ms(events[0]);
  const end = ms(events[events.length - 1]);
  const line = spans.filter((s) => s.type === 'acquireTeamShare' || s.type === 'line');
  const starts = spans.filter((s) => s.type === 'startBatchScrape' || s.type === 'startCrawl');
  const follows = spans.filter((s) => s.type === 'followJob');
  const firstAsk = Math.min(...line.map((s) => s.from), ...starts.map((s) => s.from));
  const jobFrom = Math.min(...starts.map((s) => s.from));
  const jobTo = Math.max(...follows.map((s) => s.to), ...starts.map((s) => s.to));
  const lineMs = line.reduce((n, s) => n + (s.to - s.from), 0);
  const jobMs = Number.isFinite(jobFrom) ? jobTo - jobFrom - line.filter((s) => s.from >= jobFrom).reduce((n, s) => n + (s.to - s.from), 0) : 0;
  const beforeEnd = Number.isFinite(firstAsk) ? firstAsk : end;
  const early = spans.filter((s) => s.to <= beforeEnd && s.type !== 'line');
  const byType = new Map<string, number>();
  for (const s of early) byType.set(s.type, (byType.get(s.type) ?? 0) + (s.to - s.from));
  const busy = early.reduce((n, s) => n + (s.to - s.from), 0);
  const before = [...byType].sort((a, b) => b[1] - a[1]).map(([t, d]) => `${t} ${(d / 1000).toFixed(1)}`).concat(`outside activities ${((beforeEnd - start - busy) / 1000).toFixed(1)}`).join(', ');
  return {
    before,
    beforeMs: beforeEnd - start,
    lineMs,
    jobMs,
    afterMs: Number.isFinite(jobTo) ? end - jobTo : 0,
  };
}

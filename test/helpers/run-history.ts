// What a run's history says the service answered it, for tests that compare a run's figures
// with the facts it had (not with what the test itself read at another moment).
import type { Client } from '@temporalio/client';

/**
 * The largest creditsUsed the service answered the run for a job, read from the run's history:
 * the results of its status reads (getJobSummary) and of its follower's calls (followJob: the
 * job's summary, its collection, or the cursor a lost job's follower ended with).
 */
export async function answeredCredits(client: Client, workflowId: string, jobId: string): Promise<number> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const scheduled = new Map<string, { type: string; jobId?: string }>();
  let largest = 0;
  const decode = (data: Uint8Array | null | undefined): unknown => (data ? JSON.parse(Buffer.from(data).toString('utf8')) : undefined);
  for (const event of history.events ?? []) {
    const s = event.activityTaskScheduledEventAttributes;
    if (s) {
      const input = decode(s.input?.payloads?.[0]?.data) as { jobId?: string } | undefined;
      scheduled.set(String(event.eventId), { type: s.activityType?.name ?? '', jobId: input?.jobId });
    }
    const c = event.activityTaskCompletedEventAttributes;
    if (!c) continue;
    const of = scheduled.get(String(c.scheduledEventId));
    if (!of || of.jobId !== jobId) continue;
    const result = decode(c.result?.payloads?.[0]?.data) as Record<string, { creditsUsed?: number } | number | undefined> | undefined;
    const figures = of.type === 'getJobSummary' ? [result?.creditsUsed]
      : of.type === 'followJob' ? [result?.summary, result?.collected, result?.cursor].map((x) => (typeof x === 'object' ? x?.creditsUsed : undefined))
        : [];
    for (const n of figures) if (typeof n === 'number') largest = Math.max(largest, n);
  }
  return largest;
}

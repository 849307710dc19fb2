// Webhook events of a job (`crawl.*` or `batch_scrape.*`), sent through the platform's
// dispatcher, which filters by the spec's `events`, signs and retries.
import type { ServiceContext } from '../core/service.js';
import type { WebhookEvent } from '../core/webhooks.js';
import type { Job } from './types.js';

export type JobEventSuffix = 'started' | 'page' | 'completed' | 'failed';

export function emitJobEvent(
  ctx: ServiceContext,
  job: Job,
  suffix: JobEventSuffix,
  event: { success: boolean; data?: unknown[]; error?: string },
): void {
  if (!job.webhook) return;
  const type = `${job.kind}.${suffix}` as WebhookEvent['type'];
  ctx.webhooks.send(job.team, job.webhook, {
    type,
    jobId: job.id,
    success: event.success,
    data: event.data ?? [],
    ...(event.error !== undefined ? { error: event.error } : {}),
  });
}

// Webhook specs as requests carry them, events, and the dispatcher that delivers them.
import type { AgentWebhookSpec, WebhookEventType, WebhookSpec as WebhookSpecInput } from 'webdata-contract';
import type { TeamConfig } from './teams.js';

/** A webhook as accepted in requests (contract's webhookSpecSchema, agentWebhookSpecSchema), in its object form. */
export type WebhookSpec = Exclude<WebhookSpecInput | AgentWebhookSpec, string>;

/** One event of a job, before it becomes a delivery body (webhooks/payload.ts). */
export interface WebhookEvent {
  type: WebhookEventType;
  jobId: string;
  success: boolean;
  data: unknown[];
  error?: string;
}

export interface WebhookDispatcher {
  /** Queues one delivery (signing, event filter, retries with the same webhookId); never throws. */
  send(team: TeamConfig, spec: WebhookSpec | string, event: WebhookEvent): void;
}

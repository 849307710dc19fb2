// Webhook deliveries: signed, filtered, per-job ordered first attempts, retries with
// the same webhookId on a short backoff, faults (drop/delay), stopped on close.
import type { ServiceConfig } from '../core/service.js';
import type { TeamConfig } from '../core/teams.js';
import type { WebhookDispatcher, WebhookEvent, WebhookSpec } from '../core/webhooks.js';
import type { TeamFaultInjector } from '../faults/injector.js';
import { newRandomId } from '../http/ids.js';
import type { ServiceLogger } from '../http/logger.js';
import { linkedSignal } from '../http/signals.js';
import { imitatesOss } from '../imitate/firecrawl-oss.js';
import { refuseDestination } from './destination.js';
import { buildPayload, normalizeSpec, passesFilter, withoutWebhookId } from './payload.js';
import { SIGNATURE_HEADER, signWebhookBody } from 'webdata-contract/webhook-signature';

interface Delivery {
  url: string;
  headers: Record<string, string>;
  body: string;
  webhookId: string;
  type: string;
  jobId: string;
}

export interface WebhookDispatcherOptions {
  config: Pick<ServiceConfig, 'webhook' | 'allowNonLoopback' | 'imitate'>;
  faults: TeamFaultInjector;
  log: ServiceLogger;
  fetch?: typeof fetch;
}

export interface WebhookStats {
  delivered: number;
  failedAttempts: number;
  dropped: number;
  gaveUp: number;
}

export class HttpWebhookDispatcher implements WebhookDispatcher {
  private readonly fetchImpl: typeof fetch;
  private readonly chains = new Map<string, Promise<void>>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly abort = new AbortController();
  private pending = 0;
  private idleWaiters: Array<() => void> = [];
  private closed = false;
  readonly stats: WebhookStats = { delivered: 0, failedAttempts: 0, dropped: 0, gaveUp: 0 };

  constructor(private readonly options: WebhookDispatcherOptions) {
    this.fetchImpl = options.fetch ?? fetch;
  }

  send(team: TeamConfig, specOrUrl: WebhookSpec | string, event: WebhookEvent): void {
    try {
      this.enqueue(team, normalizeSpec(specOrUrl), event);
    } catch (err) {
      this.options.log.error(`webhook ${event.type} for job ${event.jobId} not queued`, err);
    }
  }

  /** Resolves when no delivery is in flight or waiting for a retry. */
  idle(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Cancels pending retries and in-flight deliveries; later sends are ignored. */
  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.abort.abort(new Error('webhook dispatcher closed'));
    this.pending = 0;
    this.notifyIdle();
  }

  private enqueue(team: TeamConfig, spec: WebhookSpec, event: WebhookEvent): void {
    if (this.closed || !passesFilter(spec, event.type)) return;
    const refusal = refuseDestination(spec.url, this.options.config.allowNonLoopback);
    if (refusal) {
      this.options.log.warn(`webhook ${event.type} for job ${event.jobId} not sent: ${refusal}`);
      return;
    }
    const faults = this.options.faults.get(team.id);
    if (this.options.faults.chance(faults.webhookDropRate)) {
      this.stats.dropped++;
      return;
    }
    const webhookId = newRandomId();
    // Imitating the open-source server: no `webhookId` in the body and no signature, secret or not.
    const imitateOss = imitatesOss(this.options.config);
    const payload = buildPayload(spec, event, webhookId);
    const body = JSON.stringify(imitateOss ? withoutWebhookId(payload) : payload);
    const headers: Record<string, string> = { ...spec.headers, 'content-type': 'application/json', 'user-agent': 'webdata-service-webhooks/1' };
    if (team.webhookSecret && !imitateOss) headers[SIGNATURE_HEADER] = signWebhookBody(body, team.webhookSecret);
    const delivery: Delivery = { url: spec.url, headers, body, webhookId, type: event.type, jobId: event.jobId };

    this.pending++;
    const delayMs = faults.webhookDelayMs ?? 0;
    // First attempts of one job go out in order (started before page before completed).
    const previous = this.chains.get(event.jobId) ?? Promise.resolve();
    const next = previous
      .then(() => (delayMs > 0 ? this.wait(delayMs) : undefined))
      .then(() => this.attempt(delivery, 0));
    this.chains.set(event.jobId, next);
    void next.finally(() => {
      if (this.chains.get(event.jobId) === next) this.chains.delete(event.jobId);
    });
  }

  private async attempt(delivery: Delivery, attemptIndex: number): Promise<void> {
    if (this.closed) return;
    const ok = await this.post(delivery);
    if (this.closed) return;
    if (ok) {
      this.stats.delivered++;
      this.settle();
      return;
    }
    this.stats.failedAttempts++;
    const delays = this.options.config.webhook.retryDelaysMs;
    if (attemptIndex >= delays.length) {
      this.stats.gaveUp++;
      this.options.log.warn(`webhook ${delivery.type} ${delivery.webhookId} for job ${delivery.jobId} dropped after ${attemptIndex + 1} attempts`);
      this.settle();
      return;
    }
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.attempt(delivery, attemptIndex + 1);
    }, delays[attemptIndex]);
    timer.unref();
    this.timers.add(timer);
  }

  private async post(delivery: Delivery): Promise<boolean> {
    const linked = linkedSignal(this.abort.signal, this.options.config.webhook.timeoutMs);
    try {
      const res = await this.fetchImpl(delivery.url, { method: 'POST', headers: delivery.headers, body: delivery.body, signal: linked.signal });
      await res.arrayBuffer().catch(() => undefined);
      return res.status >= 200 && res.status < 300;
    } catch {
      return false;
    } finally {
      linked.dispose();
    }
  }

  private wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.timers.delete(timer); resolve(); }, ms);
      timer.unref();
      this.timers.add(timer);
    });
  }

  private settle(): void {
    this.pending = Math.max(0, this.pending - 1);
    if (this.pending === 0) this.notifyIdle();
  }

  private notifyIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}

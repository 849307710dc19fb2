// What the job routes share for one service instance: the job store, the team
// concurrency limiter, held credits, idempotency keys and the resource fetcher. It
// aborts every running job when the service closes.
import type { ServiceContext } from '../core/service.js';
import { createResourceFetcher, type ResourceFetcher } from '../crawler/fetcher.js';
import { CreditGate } from './credit-gate.js';
import { IdempotencyKeys } from './idempotency.js';
import { JobStore } from './store.js';
import { TeamLimiter } from './team-limiter.js';
import type { Job } from './types.js';

const SWEEP_EVERY_MS = 60_000;

export class JobsRuntime {
  readonly store: JobStore;
  readonly limiter: TeamLimiter;
  readonly credits: CreditGate;
  readonly idempotency: IdempotencyKeys;
  readonly fetcher: ResourceFetcher;
  private readonly running = new Set<Promise<void>>();
  private readonly sweeper: NodeJS.Timeout;
  private closed = false;

  constructor(readonly ctx: ServiceContext) {
    const now = () => ctx.now();
    this.store = new JobStore(ctx.config.jobTtlMs, now);
    this.limiter = new TeamLimiter(now);
    this.credits = new CreditGate(ctx.ledger);
    this.idempotency = new IdempotencyKeys(ctx.config.jobTtlMs);
    this.fetcher = createResourceFetcher({ allowNonLoopback: ctx.config.allowNonLoopback });
    this.sweeper = setInterval(() => {
      this.store.sweep();
      this.idempotency.sweep(ctx.now());
    }, Math.min(SWEEP_EVERY_MS, Math.max(1000, ctx.config.jobTtlMs)));
    this.sweeper.unref();
    ctx.onClose(() => this.close());
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Runs a job's work in the background; errors are the work's own business. */
  launch(work: Promise<void>): void {
    const tracked = work.catch(() => undefined).finally(() => this.running.delete(tracked));
    this.running.add(tracked);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.sweeper);
    for (const job of this.store.running()) abortJob(job, 'failed', 'The service shut down before the job finished', this.ctx.now());
    await Promise.all([...this.running]);
    await this.fetcher.close();
  }
}

/** Ends a running job now (cancel or shutdown) and aborts its in-flight pages. */
export function abortJob(job: Job, status: 'cancelled' | 'failed', error?: string, now = Date.now()): void {
  if (job.status !== 'scraping') return;
  job.status = status;
  if (error !== undefined) job.error = error;
  job.completedAt = now;
  job.pending = () => 0;
  job.abort.abort(new Error(error ?? `job ${status}`));
  job.changes.notify();
}

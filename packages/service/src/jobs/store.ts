// Jobs in memory. A finished job stays readable for `ttlMs` after it finished; then it
// is gone (404 "Job not found"). Running jobs never expire.
import type { Job } from './types.js';

export class JobStore {
  private readonly jobs = new Map<string, Job>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  add(job: Job): void {
    this.jobs.set(job.id, job);
  }

  /** The job, or undefined when unknown or expired. */
  get(id: string): Job | undefined {
    const job = this.jobs.get(id);
    if (job && this.expired(job)) {
      this.jobs.delete(id);
      return undefined;
    }
    return job;
  }

  expiresAt(job: Job): number {
    return (job.completedAt ?? this.now()) + this.ttlMs;
  }

  /** Every unexpired job (queue status reads a team's). */
  all(): Job[] {
    return [...this.jobs.values()].filter((j) => !this.expired(j));
  }

  running(): Job[] {
    return [...this.jobs.values()].filter((j) => j.status === 'scraping');
  }

  sweep(): void {
    for (const [id, job] of this.jobs) if (this.expired(job)) this.jobs.delete(id);
  }

  private expired(job: Job): boolean {
    return job.completedAt !== undefined && this.now() >= job.completedAt + this.ttlMs;
  }
}

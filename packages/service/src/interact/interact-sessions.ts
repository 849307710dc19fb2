// The browser sessions bound to scrape jobs (reference 3.1): opened on the first interact
// call at the scrape's page state, reused by later calls, one runner set per session.
import { INTERACT_SESSION_ACTIVITY_TTL_SEC, INTERACT_SESSION_TTL_SEC } from 'webdata-contract';
import { HttpError } from '../core/http-error.js';
import type { ScrapeRecord } from '../core/scrape.js';
import type { ServiceContext } from '../core/service.js';
import type { TeamConfig } from '../core/teams.js';
import { browserSessions, type BrowserSessionManager, type SessionManagerOptions } from '../browser/session-manager.js';
import type { BrowserSession } from '../browser/session.js';
import { replayScrape } from './replay.js';


interface Bound {
  session: BrowserSession;
}

export class InteractSessions {
  readonly manager: BrowserSessionManager;
  private readonly byJob = new Map<string, Bound>();
  private readonly opening = new Map<string, Promise<Bound>>();

  constructor(private readonly ctx: ServiceContext, opts?: SessionManagerOptions) {
    this.manager = browserSessions(ctx, opts);
  }

  find(jobId: string): Bound | undefined {
    return this.byJob.get(jobId);
  }

  /** The job's session, also one still opening (replaying the scrape): a stop must not miss it. */
  async settled(jobId: string): Promise<Bound | undefined> {
    const bound = this.byJob.get(jobId);
    if (bound) return bound;
    const pending = this.opening.get(jobId);
    return pending ? pending.catch(() => undefined) : undefined;
  }

  /** The job's live session, opening it (once, even for concurrent first calls). 410 once destroyed. */
  async open(record: ScrapeRecord, team: TeamConfig, apiKey: string, promptUsed: boolean): Promise<Bound> {
    const existing = this.byJob.get(record.id);
    if (existing) {
      if (!existing.session.active) throw gone();
      return existing;
    }
    let pending = this.opening.get(record.id);
    if (!pending) {
      pending = this.start(record, team, apiKey, promptUsed).finally(() => this.opening.delete(record.id));
      this.opening.set(record.id, pending);
    }
    return pending;
  }

  private async start(record: ScrapeRecord, team: TeamConfig, apiKey: string, promptUsed: boolean): Promise<Bound> {
    const profile = record.options.profile as { name: string; saveChanges?: boolean } | undefined;
    const session = await this.manager.create(team, apiKey, {
      kind: 'interact',
      jobId: record.id,
      ttlSec: INTERACT_SESSION_TTL_SEC,
      activityTtlSec: INTERACT_SESSION_ACTIVITY_TTL_SEC,
      streamWebView: true,
      promptUsed,
      profile: profile ? { name: profile.name, saveChanges: profile.saveChanges ?? true } : undefined,
    });
    session.busy++;
    try {
      await replayScrape(await session.currentPage(), record);
    } catch (err) {
      // A session that never reached the scrape's state is released without a charge.
      await this.manager.destroy(session, 'replay failed', { bill: false });
      throw new HttpError(502, `Browser service failed to restore the scrape's page state: ${(err as Error).message.split('\n')[0]}`, {
        code: 'INTERACT_REPLAY_FAILED',
      });
    } finally {
      session.busy--;
      session.touch(this.ctx.now());
    }
    const bound: Bound = { session };
    this.byJob.set(record.id, bound);
    this.ctx.activity.record({ id: record.id, teamId: team.id, endpoint: 'interact', createdAt: session.createdAt, target: record.url });
    return bound;
  }
}

export function gone(): HttpError {
  return new HttpError(410, 'Browser session already destroyed; rerun the scrape to interact again', { code: 'SESSION_DESTROYED' });
}

// The registry of a service's browser sessions (standalone and interact-bound): limits,
// credits, lifetimes, profiles and billing. One manager per ServiceContext, shared by the
// browser and interact routes so the team's session limit counts both kinds.
import { randomUUID } from 'node:crypto';
import { HttpError } from '../core/http-error.js';
import type { ServiceContext } from '../core/service.js';
import type { TeamConfig } from '../core/teams.js';
import { sessionCredits, worstCaseCredits } from './billing.js';
import { requireChromium } from './chromium.js';
import { SessionGateway } from './gateway.js';
import { profileStore, type ProfileSpec, type ProfileStore } from './profiles.js';
import { BrowserSession, type SessionEnd, type SessionKind } from './session.js';

export interface SessionManagerOptions {
  chromiumPath?: string;
  /** Where profiles are stored; default: a folder under the OS temp dir. */
  profilesDir?: string;
  /** How often lifetimes are checked, ms. */
  sweepIntervalMs?: number;
}

export interface CreateSessionOptions {
  kind: SessionKind;
  jobId?: string;
  ttlSec: number;
  activityTtlSec: number;
  streamWebView: boolean;
  profile?: ProfileSpec;
  /** Credits are checked at the prompt rate when the session starts with a prompt. */
  promptUsed?: boolean;
}

export interface SessionUrls {
  cdpUrl: string;
  liveViewUrl: string;
  interactiveLiveViewUrl: string;
}

export class BrowserSessionManager {
  private readonly sessions = new Map<string, BrowserSession>();
  private readonly starting = new Map<string, number>();
  private readonly profiles: ProfileStore;
  private readonly sweeper: NodeJS.Timeout;
  private readonly destroyListeners: Array<(s: BrowserSession) => Promise<void> | void> = [];
  readonly gateway: SessionGateway;
  private closed = false;

  constructor(private readonly ctx: ServiceContext, private readonly opts: SessionManagerOptions = {}) {
    this.profiles = profileStore(opts.profilesDir);
    this.gateway = new SessionGateway(this);
    this.sweeper = setInterval(() => this.sweep(), opts.sweepIntervalMs ?? 500);
    this.sweeper.unref();
  }

  now(): number {
    return this.ctx.now();
  }

  get(id: string): BrowserSession | undefined {
    return this.sessions.get(id);
  }

  list(teamId: string, kind: SessionKind, status?: 'active' | 'destroyed'): BrowserSession[] {
    return [...this.sessions.values()].filter(
      (s) => s.teamId === teamId && s.kind === kind && (!status || s.status === status),
    );
  }

  /** Called (once) for every destroyed session, before its browser is closed. */
  onDestroy(fn: (s: BrowserSession) => Promise<void> | void): void {
    this.destroyListeners.push(fn);
  }

  async create(team: TeamConfig, apiKey: string, o: CreateSessionOptions): Promise<BrowserSession> {
    if (this.closed) throw new HttpError(503, 'browser service is shutting down');
    const chromiumPath = requireChromium(this.opts.chromiumPath);
    const active = this.list(team.id, 'browser', 'active').length + this.list(team.id, 'interact', 'active').length;
    if (active + (this.starting.get(team.id) ?? 0) >= team.maxBrowserSessions) {
      throw new HttpError(429, `Maximum concurrent browser sessions reached (${team.maxBrowserSessions})`, {
        code: 'MAX_BROWSER_SESSIONS',
      });
    }
    const needed = worstCaseCredits(o.ttlSec, o.promptUsed ?? false);
    if (this.ctx.ledger.remaining(team.id) < needed) {
      throw new HttpError(402, `Insufficient credits for a browser session: ${needed} credits needed for a ttl of ${o.ttlSec} s`, {
        code: 'INSUFFICIENT_CREDITS',
      });
    }
    const id = randomUUID();
    if (o.profile?.saveChanges) this.profiles.acquireSaver(team.id, o.profile.name, id);
    this.starting.set(team.id, (this.starting.get(team.id) ?? 0) + 1);
    try {
      await this.gateway.ready();
      const storage = o.profile ? await this.profiles.load(team.id, o.profile.name) : undefined;
      const session = await BrowserSession.start(
        { id, teamId: team.id, apiKey, kind: o.kind, jobId: o.jobId, ttlSec: o.ttlSec, activityTtlSec: o.activityTtlSec,
          streamWebView: o.streamWebView, profile: o.profile, now: this.now() },
        chromiumPath,
        storage,
      ).catch((err: unknown) => {
        throw new HttpError(502, `Browser service failed to start a session: ${(err as Error).message}`, { code: 'BROWSER_START_FAILED' });
      });
      session.promptUsed = o.promptUsed ?? false;
      this.sessions.set(id, session);
      // A browser closed from outside (CDP Browser.close, crash) ends the session.
      void session.chromiumProcess.exited.then(() => this.destroyQuietly(session, 'browser exited'));
      if (this.closed) await this.destroy(session, 'service closed');
      return session;
    } catch (err) {
      if (o.profile?.saveChanges) this.profiles.releaseSaver(team.id, o.profile.name, id);
      throw err;
    } finally {
      this.starting.set(team.id, (this.starting.get(team.id) ?? 1) - 1);
    }
  }

  urls(session: BrowserSession): SessionUrls {
    return this.gateway.urls(session);
  }

  /** Ends a session once: bills it, saves its profile, releases its browser. Later calls return the same end. */
  async destroy(session: BrowserSession, reason: string, opts: { bill?: boolean } = {}): Promise<SessionEnd> {
    if (session.end) return session.end;
    const destroyedAt = Math.max(this.now(), session.createdAt);
    const sessionDurationMs = destroyedAt - session.createdAt;
    const creditsBilled = opts.bill === false ? 0 : sessionCredits(sessionDurationMs, session.promptUsed);
    session.status = 'destroyed';
    session.end = { destroyedAt, sessionDurationMs, creditsBilled, reason };
    if (creditsBilled > 0) this.ctx.ledger.charge({
      teamId: session.teamId,
      apiKey: session.apiKey,
      credits: creditsBilled,
      reason: session.kind === 'interact' ? 'interact session' : 'browser session',
      jobId: session.jobId ?? session.id,
    });
    for (const fn of this.destroyListeners) {
      try {
        await fn(session);
      } catch {
        // Listeners clean up their own resources; a failure must not block the others.
      }
    }
    const profile = session.profile;
    if (profile?.saveChanges) {
      try {
        // Pages driven by another CDP client: one round trip to each makes this connection
        // process their navigations first; storageState() reads localStorage only for origins
        // it has seen navigated (a loaded machine delivered them late: localStorage was lost).
        await Promise.all(session.context.pages().map((p) => p.evaluate('0').catch(() => undefined)));
        const state = await session.context.storageState();
        await this.profiles.save(session.teamId, profile.name, state);
      } catch {
        // The browser may already be gone (crash); the previous profile stays as it was.
      } finally {
        this.profiles.releaseSaver(session.teamId, profile.name, session.id);
      }
    }
    this.gateway.disconnect(session.id);
    await session.shutdown();
    return session.end;
  }

  /** For timers and exit hooks, where nobody awaits the outcome. */
  destroyQuietly(session: BrowserSession, reason: string): void {
    this.destroy(session, reason).catch(() => undefined);
  }

  private sweep(): void {
    const now = this.now();
    for (const s of this.sessions.values()) {
      if (s.active) {
        if (s.busy > 0) s.touch(now);
        if (now >= s.expiresAt) this.destroyQuietly(s, 'ttl expired');
        else if (now - s.lastActivity >= s.activityTtlMs) this.destroyQuietly(s, 'inactive');
      } else if (s.end && now - s.end.destroyedAt > this.ctx.config.jobTtlMs) {
        this.sessions.delete(s.id);
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    await Promise.all([...this.sessions.values()].filter((s) => s.active).map((s) => this.destroy(s, 'service closed')));
    await this.gateway.close();
  }
}

const managers = new WeakMap<ServiceContext, BrowserSessionManager>();

/** The context's session manager, created on first use and closed with the service. */
export function browserSessions(ctx: ServiceContext, opts?: SessionManagerOptions): BrowserSessionManager {
  let manager = managers.get(ctx);
  if (!manager) {
    manager = new BrowserSessionManager(ctx, opts);
    managers.set(ctx, manager);
    const m = manager;
    ctx.onClose(() => m.close());
  }
  return manager;
}

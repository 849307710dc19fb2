// One check of a monitor: fetch every target's pages, compare each with the monitor's
// baseline (same/new/changed, removed for crawl pages no longer reached, error), bill the
// pages scraped, update the baseline, and send `monitor.page` and `monitor.check.completed`.
// With a goal, judgeEnabled and a configured model, new and changed pages carry a `judgment`.
import type { MonitorCheckCompletedData } from 'webdata-contract';
import { scrapeCredits } from 'webdata-contract';
import type { ServiceContext } from '../core/service.js';
import { newJobId } from '../http/ids.js';
import { llmConfigFromEnv, type LlmConfig } from '../interact/llm-config.js';
import { jobsRuntimeOf } from '../jobs/index.js';
import { compareWithBaseline, markdownHash, pageKey } from './compare.js';
import { judgePage } from './judge.js';
import { mapPool } from './pool.js';
import { serializeCheckPage } from './serialize.js';
import type { MonitorStore } from './store.js';
import { fetchTarget } from './targets.js';
import { summarize, type BaselinePage, type CheckPageRecord, type CheckRecord, type MonitorRecord, type MonitorTargetRecord } from './types.js';

/** Pages judged at once: a crawl target's pages do not wait on each other's model call. */
const JUDGE_CONCURRENCY = 4;

/** Where a check's judgments come from: the model and the monitor's goal. */
interface Judge {
  llm: LlmConfig;
  goal: string;
  signal: AbortSignal;
}

export class MonitorRunner {
  /** checkId → abort of the running check. */
  private readonly running = new Map<string, { abort: AbortController; done: Promise<void> }>();

  constructor(
    private readonly ctx: ServiceContext,
    private readonly store: MonitorStore,
  ) {}

  /** A new queued check of the monitor, started at once. */
  start(monitor: MonitorRecord, trigger: CheckRecord['trigger'], scheduledFor: number | null): CheckRecord {
    const now = this.ctx.now();
    const check = this.newCheck(monitor, trigger, scheduledFor, now);
    if (monitor.currentCheckId !== null) {
      // A scheduled tick while the last check still runs is recorded and skipped.
      check.status = 'skipped_overlap';
      check.finishedAt = now;
      this.store.addCheck(check);
      return check;
    }
    this.store.addCheck(check);
    if (this.ctx.ledger.remaining(monitor.team.id) <= 0) {
      check.status = 'skipped_no_credits';
      check.finishedAt = now;
      check.error = 'The team has no credits left';
      return check;
    }
    monitor.currentCheckId = check.id;
    const abort = new AbortController();
    const done = this.run(monitor, check, abort.signal).finally(() => {
      this.running.delete(check.id);
      monitor.currentCheckId = null;
    });
    this.running.set(check.id, { abort, done });
    return check;
  }

  /** Aborts a monitor's running check (delete) and waits for it to settle. */
  async stop(monitor: MonitorRecord): Promise<void> {
    const id = monitor.currentCheckId;
    const entry = id === null ? undefined : this.running.get(id);
    entry?.abort.abort(new Error('monitor deleted'));
    await entry?.done;
  }

  async close(): Promise<void> {
    for (const { abort } of this.running.values()) abort.abort(new Error('service closing'));
    await Promise.all([...this.running.values()].map((r) => r.done));
  }

  private newCheck(monitor: MonitorRecord, trigger: CheckRecord['trigger'], scheduledFor: number | null, now: number): CheckRecord {
    return {
      id: newJobId(now),
      monitorId: monitor.id,
      teamId: monitor.team.id,
      status: 'queued',
      trigger,
      scheduledFor,
      startedAt: null,
      finishedAt: null,
      estimatedCredits: estimatePages(monitor.targets),
      actualCredits: null,
      pages: [],
      error: null,
      createdAt: now,
      updatedAt: now,
    };
  }

  private async run(monitor: MonitorRecord, check: CheckRecord, signal: AbortSignal): Promise<void> {
    // Answer the run request first: the check starts on the next turn.
    await Promise.resolve();
    check.status = 'running';
    check.startedAt = this.ctx.now();
    let credits = 0;
    const jobs = jobsRuntimeOf(this.ctx);
    // The model as configured when the check starts; none (or no goal, or judging off): no judgment.
    const llm = monitor.goal && monitor.judgeEnabled ? llmConfigFromEnv() : undefined;
    const judge = llm && monitor.goal ? { llm, goal: monitor.goal, signal } : undefined;
    try {
      for (const target of monitor.targets) {
        if (signal.aborted) break;
        const fetched = await fetchTarget(target, {
          ctx: this.ctx,
          jobs,
          team: monitor.team,
          signal,
          mayScrape: () => this.ctx.ledger.remaining(monitor.team.id) >= 1,
        });
        // Failed scrapes bill 0, as on the hosted service.
        for (const page of fetched.pages) {
          if (!page.ok) continue;
          const c = scrapeCredits(1);
          this.ctx.ledger.charge({ teamId: monitor.team.id, apiKey: monitor.apiKey, credits: c, reason: 'monitor', jobId: check.id });
          credits += c;
        }
        await this.record(monitor, check, target, fetched.pages, fetched.complete, judge);
      }
      const errors = check.pages.filter((p) => p.status === 'error').length;
      check.status = signal.aborted ? 'failed' : errors === 0 ? 'completed' : errors === check.pages.length ? 'failed' : 'partial';
      if (signal.aborted) check.error = 'The check was stopped before it finished';
      else if (check.status === 'failed') check.error = 'Every page of the check failed';
    } catch (err) {
      check.status = 'failed';
      check.error = err instanceof Error ? err.message : String(err);
    }
    const now = this.ctx.now();
    check.actualCredits = credits;
    check.finishedAt = now;
    check.updatedAt = now;
    monitor.lastRunAt = now;
    monitor.lastCheckSummary = summarize(check.pages);
    this.store.sweep(monitor);
    if (!signal.aborted) this.notifyCompleted(monitor, check);
  }

  /** Turns a target's fetched pages into check pages and moves its baseline on. */
  private async record(
    monitor: MonitorRecord, check: CheckRecord, target: MonitorTargetRecord, pages: Awaited<ReturnType<typeof fetchTarget>>['pages'], complete: boolean, judge: Judge | undefined,
  ): Promise<void> {
    let baseline = monitor.baseline.get(target.id);
    if (!baseline) monitor.baseline.set(target.id, (baseline = new Map<string, BaselinePage>()));
    const seen = new Set<string>();
    const now = this.ctx.now();
    const recs: CheckPageRecord[] = [];
    const toJudge: Array<{ rec: CheckPageRecord; markdown: string }> = [];
    for (const page of pages) {
      const key = pageKey(page.url);
      if (seen.has(key)) continue;
      seen.add(key);
      const before = baseline.get(key);
      let rec: CheckPageRecord;
      if (page.ok) {
        const { status, diffText } = compareWithBaseline(page.url, page.markdown, before);
        rec = { id: newJobId(now), targetId: target.id, url: page.url, status, previousScrapeId: before?.scrapeId ?? null, currentScrapeId: page.scrapeId, statusCode: page.statusCode, error: null, diffText, createdAt: now };
        baseline.set(key, { url: page.url, hash: markdownHash(page.markdown), markdown: page.markdown, scrapeId: page.scrapeId });
        if (judge && (status === 'new' || status === 'changed')) toJudge.push({ rec, markdown: page.markdown });
      } else {
        rec = { id: newJobId(now), targetId: target.id, url: page.url, status: 'error', previousScrapeId: before?.scrapeId ?? null, currentScrapeId: page.scrapeId, statusCode: page.statusCode, error: page.error, diffText: null, createdAt: now };
      }
      recs.push(rec);
    }
    // Judged before they are added: the page, its monitor.page webhook and the check agree.
    if (judge) await this.judgeAll(monitor, check, judge, toJudge);
    for (const rec of recs) this.addPage(monitor, check, rec);
    // Only a crawl that ran to its end can say a page is gone; a scrape target lists its own URLs.
    if (target.type !== 'crawl' || !complete) return;
    for (const [key, before] of [...baseline]) {
      if (seen.has(key)) continue;
      baseline.delete(key);
      this.addPage(monitor, check, { id: newJobId(now), targetId: target.id, url: before.url, status: 'removed', previousScrapeId: before.scrapeId, currentScrapeId: null, statusCode: null, error: null, diffText: null, createdAt: now });
    }
  }

  /** Sets each page's judgment from the model; a page the model failed on stays without one (logged). */
  private async judgeAll(monitor: MonitorRecord, check: CheckRecord, judge: Judge, pages: Array<{ rec: CheckPageRecord; markdown: string }>): Promise<void> {
    await mapPool(pages, JUDGE_CONCURRENCY, async ({ rec, markdown }) => {
      if (judge.signal.aborted) return;
      const status = rec.status as 'new' | 'changed';
      const result = await judgePage(judge.llm, judge.goal, { url: rec.url, status, diffText: rec.diffText, markdown }, judge.signal);
      if (result.kind === 'judged') rec.judgment = result.judgment;
      else this.ctx.log.warn(`monitor ${monitor.id} check ${check.id}: no judgment for ${rec.url}: ${result.reason}`);
    });
  }

  private addPage(monitor: MonitorRecord, check: CheckRecord, page: CheckPageRecord): void {
    check.pages.push(page);
    check.updatedAt = page.createdAt;
    if (!monitor.webhook) return;
    this.ctx.webhooks.send(monitor.team, monitor.webhook, {
      type: 'monitor.page',
      jobId: check.id,
      success: page.status !== 'error',
      data: [{ monitorId: monitor.id, checkId: check.id, ...serializeCheckPage(page) }],
      ...(page.error !== null ? { error: page.error } : {}),
    });
  }

  private notifyCompleted(monitor: MonitorRecord, check: CheckRecord): void {
    if (!monitor.webhook) return;
    const data: MonitorCheckCompletedData = { monitorId: monitor.id, checkId: check.id, status: check.status, summary: summarize(check.pages) };
    this.ctx.webhooks.send(monitor.team, monitor.webhook, {
      type: 'monitor.check.completed',
      jobId: check.id,
      success: check.status === 'completed',
      data: [data],
      ...(check.error !== null ? { error: check.error } : {}),
    });
  }
}

/** Pages one check may scrape: every scrape URL, and each crawl's limit (100 when none is set, for the estimate). */
export function estimatePages(targets: readonly MonitorTargetRecord[]): number {
  return targets.reduce((n, t) => n + (t.type === 'scrape' ? t.urls.length : (t.crawlOptions?.limit ?? 100)), 0);
}

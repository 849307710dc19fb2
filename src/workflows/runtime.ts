// Per-run helpers shared by the stages: progress, UI details, search attributes, job events.
import { setCurrentDetails, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { CREDITS, OUTCOME, PAGES, STAGE, TARGET_HOST } from '../search-attributes.js';
import { HOST_IN_VISIBILITY_MEMO } from '../shared/visibility.js';
import type { PipelineProgress } from './definitions.js';
import { hostOf } from './host.js';
import { noProgressText, stalledText } from './progress-rule.js';
import { STAGES, type StageName } from './input-fields.js';
import type { PipelineState, StageReport } from './state.js';

/** Job-level deliveries are a few per job: this many ids cover a run's recent jobs many times over. */
export const SEEN_WEBHOOKS_KEPT = 256;

export class PipelineRuntime {
  readonly state: PipelineState;
  stage: PipelineProgress['stage'] = 'starting';
  status: PipelineProgress['status'] = 'running';
  /** Job-level webhook events not yet consumed, by job id. */
  private readonly events = new Map<string, string[]>();
  /** Counts what may wake a budget wait: raiseBudget updates and changes of the tenant's budget. */
  budgetWakes = 0;
  /** Set by the last read of the tenant's ledger when its credits per hour limit the run more than its budgets. */
  tenantHour?: { tenant: string; perHour: number; creditsThisHour: number; hourLeft: number; freesAt?: number };

  constructor(state: PipelineState) {
    this.state = state;
  }

  documents(): number {
    return Object.values(this.state.reports).reduce((n, r) => n + (r?.documents ?? 0), 0);
  }

  report(stage: StageName): StageReport {
    const existing = this.state.reports[stage];
    if (existing) return existing;
    const created: StageReport = { status: 'pending', credits: 0 };
    this.state.reports[stage] = created;
    return created;
  }

  pushEvent(jobId: string, type: string, webhookId?: string): void {
    // Webhook ids are kept in the carried state (bounded): a redelivery after continue-as-new is still known.
    if (webhookId && !this.firstDelivery(webhookId)) return;
    const list = this.events.get(jobId) ?? [];
    list.push(type);
    this.events.set(jobId, list);
  }

  /** Records a delivery's id; false if it was seen already. The oldest id goes when the list is full. */
  private firstDelivery(webhookId: string): boolean {
    const seen = (this.state.seenWebhooks ??= []);
    if (seen.includes(webhookId)) return false;
    seen.push(webhookId);
    if (seen.length > SEEN_WEBHOOKS_KEPT) seen.splice(0, seen.length - SEEN_WEBHOOKS_KEPT);
    return true;
  }

  hasEvent(jobId: string): boolean {
    return (this.events.get(jobId)?.length ?? 0) > 0;
  }

  takeEvents(jobId: string): string[] {
    const list = this.events.get(jobId) ?? [];
    this.events.delete(jobId);
    return list;
  }

  progress(): PipelineProgress {
    return {
      stage: this.stage,
      status: this.status,
      stages: this.state.reports,
      credits: this.state.credits,
      jobs: this.state.jobs,
      documents: this.documents(),
      continuedAsNew: this.state.continuedAsNew,
    };
  }

  /** Refreshes what the Temporal UI shows: current details (markdown) and search attributes. */
  publish(): void {
    const { credits } = this.state;
    const lines = [
      `**${this.stage}** · ${this.status} · ${this.documents()} documents · ${credits.spent}${credits.budget === null ? '' : ` / ${credits.budget}`} credits`,
      '',
      '| stage | status | documents | credits | note |',
      '|---|---|---|---|---|',
      ...STAGES.filter((s) => this.state.reports[s]).map((s) => {
        const r = this.state.reports[s] as StageReport;
        const note = noProgressText(r, Date.now()) ?? stalledText(r) ?? r.reason ?? r.jobId ?? '';
        return `| ${s} | ${r.status} | ${r.documents ?? r.urls ?? ''} | ${r.credits} | ${note.replace(/\|/g, '/')} |`;
      }),
    ];
    const changes = this.state.changes?.report;
    if (changes) {
      const c = changes.counts;
      lines.push('', `changes in series ${changes.series} since ${changes.previousRunId ?? '(first run)'}: ${c.new} new · ${c.changed} changed · ${c.unchanged} unchanged · ${c.removed} removed`);
    }
    setCurrentDetails(lines.join('\n'));
    if (workflowInfo().memo?.[HOST_IN_VISIBILITY_MEMO] === false) this.state.hostHidden = true;
    upsertSearchAttributes([
      { key: STAGE, value: String(this.stage) },
      // Not when the client asked for the host to stay out (a memo of the first event: replays alike).
      ...(this.state.hostHidden ? [] : [{ key: TARGET_HOST, value: hostOf(this.state.config.url) }]),
      { key: PAGES, value: this.documents() },
      { key: CREDITS, value: credits.spent },
      { key: OUTCOME, value: this.status },
    ]);
  }

  workflowId(): string {
    return workflowInfo().workflowId;
  }
}

export { hostOf };

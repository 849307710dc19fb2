// Messages of the pipeline and parseDocuments workflows, shared by the workflows, the client and
// the webhook receiver. Plain definition objects (what defineQuery & co. return) so that a backend
// that only starts runs loads neither @temporalio/workflow nor the workflow code.
import { query, signal, update } from '../shared/message-definitions.js';
import type { StageName } from './input.js';
import type { CreditReport, StageReport } from './state.js';
import type { ParseDocumentsProgress } from './parse-documents.js';

export interface PipelineProgress {
  stage: StageName | 'starting' | 'done';
  status: 'running' | 'completed' | 'partial' | 'failed' | 'cancelled';
  stages: Partial<Record<StageName, StageReport>>;
  credits: CreditReport;
  jobs: Record<string, string>;
  documents: number;
  continuedAsNew: number;
}

/** A job-level webhook event (crawl, batch scrape, extract or agent), forwarded by the receiver. */
export interface JobEventSignal {
  jobId: string;
  type: string;
  webhookId?: string;
}

/** Workflow type names: the client starts runs by name, not by importing the workflow code. */
export const PIPELINE_WORKFLOW_TYPE = 'webDataPipeline';
export const PARSE_DOCUMENTS_WORKFLOW_TYPE = 'parseDocuments';

export const progressQuery = query<PipelineProgress, [], 'progress'>('progress');
export const jobEventSignal = signal<[JobEventSignal], 'jobEvent'>('jobEvent');
/** Raises the run's credit budget by `credits`; returns the new budget. */
export const raiseBudgetUpdate = update<{ budget: number }, [{ credits: number }], 'raiseBudget'>('raiseBudget');
/** The run's tenant's monthly budget was set: a run waiting for credits reads its ledger again now. */
export const tenantBudgetChangedSignal = signal<[], 'tenantBudgetChanged'>('tenantBudgetChanged');
/** The parseDocuments run's progress (the same query name as the pipeline's). */
export const parseProgressQuery = query<ParseDocumentsProgress, [], 'progress'>('progress');

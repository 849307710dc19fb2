// Messages of the pipeline workflow, shared by the workflow, the client and the webhook receiver.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { StageName } from './input.js';
import type { CreditReport, StageReport } from './state.js';

export interface PipelineProgress {
  stage: StageName | 'starting' | 'done';
  status: 'running' | 'completed' | 'partial' | 'failed' | 'cancelled';
  stages: Partial<Record<StageName, StageReport>>;
  credits: CreditReport;
  jobs: Record<string, string>;
  documents: number;
  continuedAsNew: number;
}

/** A job-level webhook event, forwarded by the receiver (only started/completed/failed). */
export interface JobEventSignal {
  jobId: string;
  type: string;
  webhookId?: string;
}

export const progressQuery = defineQuery<PipelineProgress>('progress');
export const jobEventSignal = defineSignal<[JobEventSignal]>('jobEvent');
/** Raises the run's credit budget by `credits`; returns the new budget. */
export const raiseBudgetUpdate = defineUpdate<{ budget: number }, [{ credits: number }]>('raiseBudget');

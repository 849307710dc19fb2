// The metrics the workflow interceptor reports through the `webdataMetrics` sink: shared by the
// workflow end (worker/workflow-metrics.ts, bundled), the ledger workflow and the worker end
// (worker/workflow-metrics-sink.ts).
import type { Sinks } from '@temporalio/workflow';

/** The package's workflow metrics, by name; `tenant: true` adds the run's (bounded) tenant label. */
export const WORKFLOW_METRICS = {
  webdata_pipeline_runs: { kind: 'counter', description: 'Finished pipeline runs by status', tenant: true },
  webdata_pipeline_duration_seconds: { kind: 'histogram', description: 'Duration of a pipeline run (its last execution)', tenant: false },
  webdata_credits: { kind: 'counter', description: 'Credits of finished runs by stage', tenant: true },
  webdata_job_duration_seconds: { kind: 'histogram', description: 'Job duration from start to collected', tenant: false },
  webdata_tenant_credits: { kind: 'counter', description: 'Credits settled on tenant ledgers (monthly budgets)', tenant: true },
  webdata_tenant_budget_refusals: { kind: 'counter', description: 'Reservations a tenant budget refused', tenant: true },
  webdata_job_no_progress_seconds: { kind: 'gauge', description: 'Longest time without progress among the jobs this worker\'s runs wait on, by kind', tenant: false },
  webdata_jobs_stalled: { kind: 'counter', description: 'Jobs declared stalled (no progress for the stall time) in finished runs', tenant: true },
} as const;

export type WorkflowMetricName = keyof typeof WORKFLOW_METRICS;

export interface WebDataMetricsSinks extends Sinks {
  webdataMetrics: {
    /**
     * Adds to a counter, records in a histogram, or sets a gauge (WORKFLOW_METRICS says which).
     * A gauge's `job` tag is not a label: the worker keeps the largest value over the jobs.
     */
    record(name: WorkflowMetricName, value: number, tags: Record<string, string>): void;
  };
}

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
} as const;

export type WorkflowMetricName = keyof typeof WORKFLOW_METRICS;

export interface WebDataMetricsSinks extends Sinks {
  webdataMetrics: {
    /** Adds to a counter or records in a histogram (WORKFLOW_METRICS says which). */
    record(name: WorkflowMetricName, value: number, tags: Record<string, string>): void;
  };
}

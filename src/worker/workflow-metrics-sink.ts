// The worker end of the `webdataMetrics` sink: records what the workflow interceptor reports on
// the worker's meter, adding the run's tenant (bounded, tenant-labels.ts) where the metric has it.
import type { MetricCounter, MetricGauge, MetricHistogram, MetricMeter } from '@temporalio/common';
import type { InjectedSinks } from '@temporalio/worker';
import { tenantLabels, workflowTenant } from './tenant-labels.js';
import { WORKFLOW_METRICS, type WebDataMetricsSinks, type WorkflowMetricName } from '../shared/workflow-metrics-spec.js';

/** A job not heard of for this long no longer counts in a gauge (its run ended or moved on). */
const GAUGE_ENTRY_TTL_MS = 10 * 60_000;

/**
 * A gauge over many jobs: the largest value among the jobs last reported, per label set. One
 * value per job would be a label per job id; one shared value would show whichever run
 * reported last.
 */
class LargestOfJobs {
  private readonly byLabels = new Map<string, Map<string, { value: number; at: number }>>();
  constructor(private readonly gauge: MetricGauge) {}

  set(job: string, value: number, labels: Record<string, string>): void {
    const key = JSON.stringify(labels);
    const jobs = this.byLabels.get(key) ?? new Map<string, { value: number; at: number }>();
    this.byLabels.set(key, jobs);
    const now = Date.now();
    if (value > 0) jobs.set(job, { value, at: now });
    else jobs.delete(job);
    let largest = 0;
    for (const [id, entry] of jobs) {
      if (now - entry.at > GAUGE_ENTRY_TTL_MS) jobs.delete(id);
      else largest = Math.max(largest, entry.value);
    }
    this.gauge.set(largest, labels);
  }
}

export function workflowMetricsSinks(meter: MetricMeter): InjectedSinks<WebDataMetricsSinks> {
  const instruments = new Map<WorkflowMetricName, MetricCounter | MetricHistogram | LargestOfJobs>();
  const instrument = (name: WorkflowMetricName) => {
    let made = instruments.get(name);
    if (!made) {
      const spec = WORKFLOW_METRICS[name];
      made = spec.kind === 'counter'
        ? meter.createCounter(name, undefined, spec.description)
        : spec.kind === 'gauge'
          ? new LargestOfJobs(meter.createGauge(name, 'float', 's', spec.description))
          : meter.createHistogram(name, 'float', 's', spec.description);
      instruments.set(name, made);
    }
    return made;
  };
  return {
    webdataMetrics: {
      record: {
        fn(info, name, value, tags) {
          const spec = WORKFLOW_METRICS[name] as (typeof WORKFLOW_METRICS)[WorkflowMetricName] | undefined;
          if (!spec) return;
          // The labels the workflow's own metricMeter adds, kept so dashboards read as before.
          const base = { ...tags, namespace: info.namespace, taskQueue: info.taskQueue, workflowType: info.workflowType };
          const labelled = spec.tenant ? { ...base, tenant: tenantLabels.label(tags.tenant ?? workflowTenant(info)) } : base;
          const made = instrument(name);
          if (made instanceof LargestOfJobs) {
            const { job, ...labels } = labelled as Record<string, string>;
            made.set(`${info.workflowId}/${job ?? ''}`, value, labels);
          } else if ('add' in made) made.add(value, labelled);
          else made.record(value, labelled);
        },
      },
    },
  };
}

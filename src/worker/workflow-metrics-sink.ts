// The worker end of the `webdataMetrics` sink: records what the workflow interceptor reports on
// the worker's meter, adding the run's tenant (bounded, tenant-labels.ts) where the metric has it.
import type { MetricCounter, MetricHistogram, MetricMeter } from '@temporalio/common';
import type { InjectedSinks } from '@temporalio/worker';
import { tenantLabels, workflowTenant } from './tenant-labels.js';
import { WORKFLOW_METRICS, type WebDataMetricsSinks, type WorkflowMetricName } from '../shared/workflow-metrics-spec.js';

export function workflowMetricsSinks(meter: MetricMeter): InjectedSinks<WebDataMetricsSinks> {
  const instruments = new Map<WorkflowMetricName, MetricCounter | MetricHistogram>();
  const instrument = (name: WorkflowMetricName) => {
    let made = instruments.get(name);
    if (!made) {
      const spec = WORKFLOW_METRICS[name];
      made = spec.kind === 'counter'
        ? meter.createCounter(name, undefined, spec.description)
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
          if ('add' in made) made.add(value, labelled);
          else made.record(value, labelled);
        },
      },
    },
  };
}

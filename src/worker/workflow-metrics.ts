// Workflow interceptors (bundled with the workflows: deterministic, no Node built-ins) recording
// the pipeline's metrics through the `webdataMetrics` sink (workflow-metrics-sink.ts), which the
// worker records on its meter with the run's tenant as a bounded label. A sink is not called
// while replaying, so a run counts once however often its history is replayed:
//   webdata_credits{stage,tenant}              credits of a finished run, by stage (its credit report)
//   webdata_job_duration_seconds{kind}         from a job's start to the end of its collection
//   webdata_pipeline_runs{status,tenant}       finished runs (a continue-as-new is not a finish)
//   webdata_pipeline_duration_seconds{status}  the run's last execution, start to result
//   webdata_job_no_progress_seconds{kind}      per worker, the longest time a job its runs wait on
//                                              has shown no progress (the progress rule's view)
//   webdata_jobs_stalled{stage,tenant}         jobs declared stalled, counted when the run ends
import { proxySinks, workflowInfo, type WorkflowInterceptorsFactory } from '@temporalio/workflow';
import type { WebDataMetricsSinks } from '../shared/workflow-metrics-spec.js';

const { webdataMetrics } = proxySinks<WebDataMetricsSinks>();

const PIPELINE = 'webDataPipeline';
const STARTS: Record<string, string> = { startCrawl: 'crawl', startBatchScrape: 'batch' };
const COLLECTS: Record<string, string> = { collectCrawl: 'crawl', collectBatch: 'batch' };
/** Streaming collection: the follower's last call (`done`) ends the collection instead. */
const FOLLOW = 'followJob';

/** The status read the wait makes (getJobSummary): the job's progress. */
const STATUS = 'getJobSummary';

interface PipelineOutcome {
  status?: string;
  credits?: { byStage?: Record<string, number | undefined> };
  stages?: Record<string, { stalled?: unknown } | undefined>;
}

interface StatusRead {
  status?: string;
  completed?: number;
}

export const interceptors: WorkflowInterceptorsFactory = () => {
  if (workflowInfo().workflowType !== PIPELINE) return {};
  // Per execution (the factory runs once per workflow): job id → workflow time of its start.
  const started = new Map<string, number>();
  // Job id → its completed count at the last status read and when that count last moved.
  const moved = new Map<string, { completed: number; at: number }>();
  /** Reports how long a job has shown no progress (0 once it ended), the progress rule's view. */
  const noteProgress = (args: { jobId?: unknown; kind?: unknown } | undefined, read: StatusRead | undefined) => {
    if (typeof args?.jobId !== 'string' || typeof args.kind !== 'string' || !read) return;
    const now = Date.now();
    const last = moved.get(args.jobId);
    const ended = read.status === 'completed' || read.status === 'failed' || read.status === 'cancelled';
    if (!last || last.completed !== read.completed) moved.set(args.jobId, { completed: read.completed ?? 0, at: now });
    const seconds = ended ? 0 : (now - (moved.get(args.jobId)?.at ?? now)) / 1000;
    if (ended) moved.delete(args.jobId);
    webdataMetrics.record('webdata_job_no_progress_seconds', seconds, { kind: args.kind, job: args.jobId });
  };
  const noteStart = (result: unknown) => {
    const jobId = (result as { jobId?: unknown } | undefined)?.jobId;
    if (typeof jobId === 'string') started.set(jobId, Date.now());
  };
  return {
    inbound: [
      {
        async execute(input, next) {
          const began = Date.now();
          const result = (await next(input)) as PipelineOutcome | undefined;
          const status = result?.status ?? 'unknown';
          webdataMetrics.record('webdata_pipeline_runs', 1, { status });
          webdataMetrics.record('webdata_pipeline_duration_seconds', Math.max(0, Date.now() - began) / 1000, { status });
          for (const [stage, report] of Object.entries(result?.stages ?? {})) {
            if (report?.stalled) webdataMetrics.record('webdata_jobs_stalled', 1, { stage });
          }
          for (const [stage, amount] of Object.entries(result?.credits?.byStage ?? {})) {
            if (typeof amount === 'number' && amount > 0) webdataMetrics.record('webdata_credits', Math.round(amount), { stage });
          }
          return result;
        },
      },
    ],
    outbound: [
      {
        // Starts are local activities (src/workflows/activities.ts), the rest are not.
        async scheduleLocalActivity(input, next) {
          const result = await next(input);
          if (STARTS[input.activityType]) noteStart(result);
          return result;
        },
        async scheduleActivity(input, next) {
          const result = await next(input);
          if (STARTS[input.activityType]) {
            noteStart(result);
          } else if (input.activityType === STATUS) {
            noteProgress(input.args[0] as { jobId?: unknown; kind?: unknown } | undefined, result as StatusRead | undefined);
          } else {
            const args = input.args[0] as { jobId?: unknown; kind?: unknown } | undefined;
            const followed = input.activityType === FOLLOW && (result as { kind?: unknown } | undefined)?.kind === 'done';
            const kind = COLLECTS[input.activityType] ?? (followed && typeof args?.kind === 'string' ? args.kind : undefined);
            const since = kind && typeof args?.jobId === 'string' ? started.get(args.jobId) : undefined;
            if (kind && since !== undefined) {
              webdataMetrics.record('webdata_job_duration_seconds', Math.max(0, Date.now() - since) / 1000, { kind });
            }
          }
          return result;
        },
      },
    ],
  };
};

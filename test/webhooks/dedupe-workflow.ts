// A workflow that takes job events through the pipeline's own PipelineRuntime (the de-duplication
// under test) and continues as new when told, carrying the pipeline state as the pipeline does.
// A query lists every event it acted on, across runs.
import { condition, continueAsNew, defineQuery, defineSignal, setHandler } from '@temporalio/workflow';
import { jobEventSignal } from '../../src/workflows/definitions.js';
import { PipelineRuntime } from '../../src/workflows/runtime.js';
import type { PipelineState } from '../../src/workflows/state.js';

export interface DedupeCarried {
  state: PipelineState;
  /** `<jobId> <type>` of every event acted on, in every run so far. */
  actedOn: string[];
  runs: number;
}

export const actedOnQuery = defineQuery<{ actedOn: string[]; runs: number; remembered: number }>('actedOn');
export const handOverSignal = defineSignal('handOver');

export async function dedupeWorkflow(carried?: DedupeCarried): Promise<void> {
  const data: DedupeCarried = carried ?? { state: { continuedAsNew: 0 } as unknown as PipelineState, actedOn: [], runs: 0 };
  const rt = new PipelineRuntime(data.state);
  let handOver = false;
  setHandler(jobEventSignal, (event) => {
    rt.pushEvent(event.jobId, event.type, event.webhookId);
    for (const type of rt.takeEvents(event.jobId)) data.actedOn.push(`${event.jobId} ${type}`);
  });
  setHandler(actedOnQuery, () => ({ actedOn: data.actedOn, runs: data.runs, remembered: data.state.seenWebhooks?.length ?? 0 }));
  setHandler(handOverSignal, () => {
    handOver = true;
  });
  await condition(() => handOver);
  await continueAsNew<typeof dedupeWorkflow>({ ...data, runs: data.runs + 1 });
}

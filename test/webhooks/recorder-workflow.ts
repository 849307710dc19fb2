// A workflow that records every job event signal the webhook receiver sends it, so the tests
// see exactly what reached Temporal (a query answers the list). Runs until terminated.
import { condition, defineQuery, setHandler } from '@temporalio/workflow';
import { jobEventSignal, type JobEventSignal } from '../../src/workflows/definitions.js';

export const receivedQuery = defineQuery<JobEventSignal[]>('received');

export async function recorderWorkflow(): Promise<void> {
  const received: JobEventSignal[] = [];
  setHandler(jobEventSignal, (event) => { received.push(event); });
  setHandler(receivedQuery, () => received);
  await condition(() => false);
}

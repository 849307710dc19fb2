// Workflows of bench/run-cost.ts: the same two activities, plus one kind of history event a
// pipeline run also records (search attribute upserts, patch markers, cancelled timers).
import { condition, patched, proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import { STAGE } from '../../src/search-attributes.js';

const { step } = proxyActivities<{ step(): Promise<number> }>({ startToCloseTimeout: '30s' });

/** Two activities, one after the other: 3 workflow tasks, 17 events. */
export async function plain(): Promise<void> {
  await step();
  await step();
}

/** `count` upserts of one search attribute in the first task (a pipeline's publish() each). */
export async function upserts(count: number): Promise<void> {
  for (let i = 0; i < count; i++) upsertSearchAttributes([{ key: STAGE, value: `stage-${i}` }]);
  await plain();
}

/** `count` patches reached by a new run: core records a marker and upserts TemporalChangeVersion for each. */
export async function patches(count: number): Promise<void> {
  for (let i = 0; i < count; i++) patched(`bench-patch-${i}`);
  await plain();
}

/** `count` waits with a deadline, all cut short by the first activity's end (timers started, then cancelled). */
export async function cancelledTimers(count: number): Promise<void> {
  let done = false;
  const first = step().then(() => {
    done = true;
  });
  await Promise.all(Array.from({ length: count }, () => condition(() => done, '30s')));
  await first;
  await step();
}

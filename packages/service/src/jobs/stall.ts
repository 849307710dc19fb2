// Fault `stallJobsAfterPages`: a job that stops moving. A page past the job's allowance waits
// here, before it holds a credit or a team slot, until the job ends (cancel, shutdown); the
// page is then dropped. So the job stays `scraping` with `completed` frozen, and `total` keeps
// counting the pages still queued, as a job whose worker died mid-page looks on a server that
// never times it out.
import type { Job } from './types.js';

interface Gate {
  /** Pages let through. */
  started: number;
  /** Pages waiting at the gate now. */
  held: number;
}

const gates = new WeakMap<Job, Gate>();

/** True when the page may be scraped; false (once the job ended) when it was held back. */
export async function passStallGate(job: Job, signal: AbortSignal): Promise<boolean> {
  const allowance = job.stallAfterPages;
  if (allowance === undefined) return true;
  let gate = gates.get(job);
  if (!gate) gates.set(job, (gate = { started: 0, held: 0 }));
  if (gate.started < allowance) {
    gate.started += 1;
    return true;
  }
  gate.held += 1;
  try {
    await Promise.race([ended(job.abort.signal), ended(signal)]);
  } finally {
    gate.held -= 1;
  }
  return false;
}

/** Pages of the job held at the gate now (tests: the job has stalled once one is). */
export function heldPages(job: Job): number {
  return gates.get(job)?.held ?? 0;
}

function ended(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

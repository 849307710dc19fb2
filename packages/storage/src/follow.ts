// Following a run: yield its documents as they are appended, for readers that watch a run
// while a worker writes it (`webdata export --follow`). Both stores read from a position
// (a byte offset, a row id), so a follow costs one cheap read per pause, never a rescan.

/** One stored entry and the position just past it. */
export interface Positioned<T> {
  record: T;
  position: string;
}

export interface FollowOptions {
  /** Only this job's documents. */
  jobId?: string;
  /** Start after this position (a `next` from pageDocuments, or a followed position); default: the start. */
  after?: string;
  /** Stops the follow (the iterator ends quietly). */
  signal?: AbortSignal;
  /**
   * Asked when a read brought nothing new: true once no more documents will come (the run
   * ended). The follow then reads what is left and ends. Absent: it ends only on `signal`.
   */
  until?: () => boolean | Promise<boolean>;
  /** Pause between reads that brought nothing; default 250 ms. */
  intervalMs?: number;
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** The follow loop shared by the stores: `readFrom(after)` yields what is stored past `after` now. */
export async function* followEntries<T>(readFrom: (after: string | undefined) => AsyncIterable<Positioned<T>>, options: FollowOptions): AsyncGenerator<T> {
  let after = options.after;
  const { signal } = options;
  for (;;) {
    let got = 0;
    for await (const { record, position } of readFrom(after)) {
      if (signal?.aborted) return;
      after = position;
      got += 1;
      yield record;
    }
    if (signal?.aborted) return;
    if (got > 0) continue;
    // Asked before the last read: whatever was written before the run ended is read then.
    if (options.until && await options.until()) {
      for await (const { record } of readFrom(after)) {
        if (signal?.aborted) return;
        yield record;
      }
      return;
    }
    await pause(options.intervalMs ?? 250, signal);
    if (signal?.aborted) return;
  }
}

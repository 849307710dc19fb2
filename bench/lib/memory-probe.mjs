// Where a worker's memory is: loaded with `--import` into the worker process (many-pipelines
// passes it when MEMORY_PROBE_FILE is set and prints the split at the peak), it runs in the main
// thread and, as Node preloads `--import` modules into worker threads too, in the SDK's workflow
// thread. Each thread appends one JSON line every MEMORY_PROBE_MS (default 5 s) to
// MEMORY_PROBE_FILE: its own V8 heap (used, total, limit), the process's RSS, external and
// array-buffer bytes, so RSS minus the heaps is what native code (sdk-core, malloc arenas, code)
// holds. Plain JS: it loads before tsx.
import { appendFileSync, existsSync, rmSync } from 'node:fs';
import { getHeapStatistics, writeHeapSnapshot } from 'node:v8';
import { isMainThread, threadId } from 'node:worker_threads';

const file = process.env.MEMORY_PROBE_FILE;
if (file) {
  const every = Number(process.env.MEMORY_PROBE_MS ?? 5000);
  // MEMORY_PROBE_GC=1 (with --expose-gc): a full collection before each sample, so heapUsed is
  // what the thread retains rather than where V8 happens to be between collections.
  const collect = process.env.MEMORY_PROBE_GC === '1' && typeof globalThis.gc === 'function' ? globalThis.gc : undefined;
  const take = () => {
    collect?.();
    const m = process.memoryUsage();
    const h = getHeapStatistics();
    const line = {
      t: Date.now(),
      pid: process.pid,
      thread: isMainThread ? 'main' : `thread-${threadId}`,
      rss: m.rss,
      heapUsed: m.heapUsed,
      heapTotal: m.heapTotal,
      heapLimit: h.heap_size_limit,
      external: m.external,
      arrayBuffers: m.arrayBuffers,
      malloced: h.malloced_memory,
      contexts: h.number_of_native_contexts,
      detachedContexts: h.number_of_detached_contexts,
    };
    try {
      appendFileSync(file, `${JSON.stringify(line)}\n`);
      // `touch <file>.snap-<thread>` (e.g. .snap-thread-2): a heap snapshot of that thread next to
      // the file. Writing one raised a 600 MiB worker's RSS by about 1 GiB for good: diagnosis only.
      const trigger = `${file}.snap-${line.thread}`;
      if (existsSync(trigger)) {
        rmSync(trigger);
        writeHeapSnapshot(`${file}.${line.thread}-${line.t}.heapsnapshot`);
      }
    } catch {
      // A probe never takes the worker down.
    }
  };
  take();
  setInterval(take, every).unref();
}

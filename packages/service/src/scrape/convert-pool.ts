// HTML conversion is CPU-bound (about 1-3 ms a page), so it runs in worker threads, one per
// core, beside the event loop that fetches pages and serves the API. One pool per process,
// shared by every engine: engines acquire it and the last release stops its threads. Threads
// start on the first page and are unref'd, so an engine that is never closed still lets the
// process exit.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { HttpError } from '../core/http-error.js';
import { convertHtml, type HtmlContent, type HtmlOptions } from './html.js';

export interface ConvertRequest {
  id: number;
  html: string;
  url: string;
  options: HtmlOptions;
}

export type ConvertResponse =
  | { id: number; content: Omit<HtmlContent, 'rawHtml'>; error?: undefined }
  | { id: number; content?: undefined; error: { message: string; status?: number; code?: string } };

interface Task {
  request: ConvertRequest;
  resolve: (content: HtmlContent) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  /** Pages sent to the thread and not yet answered, oldest first (a thread answers in order). */
  tasks: Task[];
}

/** Smaller pages convert in the event loop: below this, posting to a thread costs more than it saves. */
export const INLINE_BELOW_CHARS = 2048;

/**
 * Pages a thread holds at once. With the next page already in its port, a thread that finishes
 * one goes on to it instead of sleeping until the event loop answers and sends another: 15 KB
 * pages scraped 16 at a time on the 2-core VM, 1 and 2 alternating in one process, took 0.02-0.05
 * ms less CPU each (of 0.53-0.57) with 2, at no fewer pages a second; 3 and 4 did no better.
 */
export const PAGES_PER_THREAD = 2;

// Sources run under tsx (.ts); the published package runs lib/ (.js).
const FROM_SOURCES = import.meta.url.endsWith('.ts');
const WORKER_URL = new URL(`./convert-worker${FROM_SOURCES ? '.ts' : '.js'}`, import.meta.url);

function startWorker(): Worker {
  if (!FROM_SOURCES) return new Worker(WORKER_URL);
  // On Node 20 a worker thread does not inherit tsx's loader from `--import tsx`: register it first.
  const tsx = import.meta.resolve('tsx/esm/api');
  const code = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(WORKER_URL.href)}); });`;
  return new Worker(code, { eval: true });
}

export class ConvertPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private nextId = 1;
  private closed = false;
  /** Settled conversions waiting for earlier ones, by id; `delivered` is the next id to hand back. */
  private readonly settled = new Map<number, () => void>();
  private delivered = 1;

  constructor(readonly size: number) {}

  /**
   * Results are handed back in the order pages were given, as when conversion ran in the event
   * loop: which of two URLs of one page a crawl keeps (`?ref=` variants) stays deterministic.
   */
  convert(html: string, url: string, options: HtmlOptions): Promise<HtmlContent> {
    const id = this.nextId++;
    const work = this.closed || this.size === 0 || html.length < INLINE_BELOW_CHARS
      ? new Promise<HtmlContent>((resolve) => resolve(convertHtml(html, url, options)))
      : new Promise<HtmlContent>((resolve, reject) => {
        this.queue.push({ request: { id, html, url, options }, resolve, reject });
        this.dispatch();
      });
    return new Promise((resolve, reject) => {
      const deliver = () => work.then(resolve, reject);
      work.then(() => this.settle(id, deliver), () => this.settle(id, deliver));
    });
  }

  private settle(id: number, deliver: () => void): void {
    this.settled.set(id, deliver);
    for (let next = this.settled.get(this.delivered); next; next = this.settled.get(this.delivered)) {
      this.settled.delete(this.delivered++);
      next();
    }
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      // The thread holding the fewest pages; a new thread while every one holds some.
      let slot: Slot | undefined;
      for (const s of this.slots) if (!slot || s.tasks.length < slot.tasks.length) slot = s;
      if ((!slot || slot.tasks.length > 0) && this.slots.length < this.size) slot = this.spawn();
      if (!slot || slot.tasks.length >= PAGES_PER_THREAD) return;
      const task = this.queue.shift()!;
      slot.tasks.push(task);
      slot.worker.postMessage(task.request);
    }
  }

  private spawn(): Slot {
    const worker = startWorker();
    worker.unref();
    const slot: Slot = { worker, tasks: [] };
    worker.on('message', (res: ConvertResponse) => {
      const task = slot.tasks.shift();
      if (task) {
        if (res.error) task.reject(toError(res.error));
        else {
          // The received object, completed in place: a spread with one more member would cost a
          // new hidden class per page on Node 20.
          const content = res.content as HtmlContent;
          content.rawHtml = task.request.html;
          task.resolve(content);
        }
      }
      this.dispatch();
    });
    // A thread that dies fails its pages, not the pool: the slot is dropped and replaced on demand.
    const drop = (err: Error) => {
      const index = this.slots.indexOf(slot);
      if (index < 0) return;
      this.slots.splice(index, 1);
      for (const task of slot.tasks.splice(0)) task.reject(err);
      if (!this.closed) this.dispatch();
    };
    worker.on('error', drop);
    worker.on('exit', (code) => drop(new Error(`HTML conversion thread exited with code ${code}`)));
    this.slots.push(slot);
    return slot;
  }

  async close(): Promise<void> {
    this.closed = true;
    // Queued and running tasks are rejected below; their settlement releases any waiting result.
    const stopped = new Error('HTML conversion pool closed');
    for (const task of this.queue.splice(0)) task.reject(stopped);
    const slots = this.slots.splice(0);
    for (const slot of slots) for (const task of slot.tasks.splice(0)) task.reject(stopped);
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
  }
}

function toError(error: { message: string; status?: number; code?: string }): Error {
  return error.status !== undefined ? new HttpError(error.status, error.message, { code: error.code }) : new Error(error.message);
}

let shared: ConvertPool | null = null;
let users = 0;

export const THREADS_ENV = 'WEBDATA_CONVERT_THREADS';

/**
 * One thread per core; none on a single core, where threads would only add copying.
 * `WEBDATA_CONVERT_THREADS` sets the number (0: convert in the event loop), for a process that
 * shares its cores with others, such as a test run of two files at a time.
 */
export function defaultThreads(env: NodeJS.ProcessEnv = process.env): number {
  const set = env[THREADS_ENV];
  if (set !== undefined && set !== '') {
    if (!/^\d{1,3}$/.test(set)) throw new Error(`${THREADS_ENV}: must be a whole number from 0 to 999, got "${set}"`);
    return Number(set);
  }
  const cores = availableParallelism();
  return cores > 1 ? cores : 0;
}

export function acquireConvertPool(): ConvertPool {
  users += 1;
  shared ??= new ConvertPool(defaultThreads());
  return shared;
}

export async function releaseConvertPool(pool: ConvertPool): Promise<void> {
  if (pool !== shared) return;
  users -= 1;
  if (users > 0) return;
  shared = null;
  await pool.close();
}

// What every benchmark shares: sizes from flags or the environment, a time bound, and a stack
// of closers so everything started is stopped at the end — on success, failure or timeout.
import { cpus, loadavg } from 'node:os';

/** `--name=value` on the command line, else the environment variable, else the default. */
export function intOption(flag: string, env: string, fallback: number): number {
  const arg = process.argv.find((a) => a.startsWith(`--${flag}=`));
  const raw = arg ? arg.slice(flag.length + 3) : process.env[env];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${flag} / ${env}: must be a whole number ≥ 1 (got ${raw})`);
  return n;
}

/** `--name=value` on the command line, else the environment variable (when named), else undefined. */
export function stringOption(flag: string, env?: string): string | undefined {
  const arg = process.argv.find((a) => a.startsWith(`--${flag}=`));
  return arg ? arg.slice(flag.length + 3) : env === undefined ? undefined : process.env[env];
}

export function listOption(flag: string, env: string, fallback: number[]): number[] {
  const arg = process.argv.find((a) => a.startsWith(`--${flag}=`));
  const raw = arg ? arg.slice(flag.length + 3) : process.env[env];
  if (raw === undefined || raw === '') return fallback;
  const list = raw.split(',').map(Number);
  if (list.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`--${flag} / ${env}: must be whole numbers ≥ 1, comma-separated (got ${raw})`);
  return list;
}

export class Closers {
  private readonly fns: Array<{ what: string; fn: () => Promise<void> | void }> = [];

  add(what: string, fn: () => Promise<void> | void): void {
    this.fns.push({ what, fn });
  }

  async closeAll(): Promise<void> {
    for (const { what, fn } of this.fns.splice(0).reverse()) {
      try {
        await fn();
      } catch (err) {
        console.error(`bench: closing ${what} failed: ${String(err)}`);
      }
    }
  }
}

/**
 * Runs `body` with a deadline. On timeout the benchmark fails (exit code 1) and the closers
 * still run; a process that does not exit 30 s after closing is ended.
 */
export async function runBench(name: string, timeoutMs: number, body: (closers: Closers, log: (line: string) => void) => Promise<void>): Promise<void> {
  const closers = new Closers();
  const started = Date.now();
  const log = (line: string) => console.error(`[${name} +${((Date.now() - started) / 1000).toFixed(0)}s] ${line}`);
  console.log(machine());
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${name}: did not finish within ${Math.round(timeoutMs / 1000)} s (BENCH_TIMEOUT_S)`)), timeoutMs);
  });
  // Ctrl-C or a kill still stops the dev server and the worker; a closed stdout (| head) is no crash.
  let onSignal: (() => void) | undefined;
  const interrupted = new Promise<never>((_, reject) => {
    onSignal = () => reject(new Error(`${name}: interrupted`));
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
  try {
    await Promise.race([body(closers, log), deadline, interrupted]);
  } catch (err) {
    console.error(err instanceof Error ? err.stack ?? err.message : String(err));
    process.exitCode = 1;
    // The abandoned body may still await a Temporal call; when its connection closes, the
    // client's retry timer throws. Nothing is left to measure: note it and keep closing.
    process.on('uncaughtException', (late: Error) => console.error(`${name}: after stop: ${late.message}`));
  } finally {
    clearTimeout(timer);
    if (onSignal) {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
    await closers.closeAll();
    setTimeout(() => {
      console.error(`${name}: still running 30 s after closing; exiting`);
      process.exit(process.exitCode ?? 1);
    }, 30_000).unref();
  }
}

export function timeoutMs(defaultSeconds: number): number {
  return intOption('timeout-s', 'BENCH_TIMEOUT_S', defaultSeconds) * 1000;
}

/** One line on where the numbers come from. */
export function machine(): string {
  const cpu = cpus();
  const load = loadavg().map((l) => l.toFixed(1)).join(' ');
  return `Node ${process.version}, ${cpu.length} CPUs (${cpu[0]?.model.trim() ?? '?'}), load average at start ${load}`;
}

// `webdata <args>` in this process: src/cli/main.ts's `main` with its lines captured, the console
// captured too (what a command prints itself), and `env` set for the call only. What a usage or
// help case proves does not need a process of its own (bin/webdata.js only sets process.exitCode
// from main's answer); test/cli/cli.test.ts keeps a few real-process cases for that wiring.
import { format } from 'node:util';
import { main } from '../../src/cli/main.js';

export interface CliRun { code: number; out: string; err: string }

/** One call at a time: the console and process.env are the process's own. */
let queue: Promise<unknown> = Promise.resolve();

export function runCliInProcess(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  const run = queue.then(() => runNow(args, env));
  queue = run.catch(() => undefined);
  return run;
}

async function runNow(args: string[], env: NodeJS.ProcessEnv): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const saved = { log: console.log, info: console.info, warn: console.warn, error: console.error };
  const savedEnv = new Map(Object.keys(env).map((k) => [k, process.env[k]] as const));
  // As the console formats them.
  const line = (args: unknown[]) => `${format(...args)}\n`;
  console.log = (...a: unknown[]) => { out.push(line(a)); };
  console.info = console.log;
  console.warn = (...a: unknown[]) => { err.push(line(a)); };
  console.error = console.warn;
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  try {
    const code = await main(args, { out: (l) => { out.push(`${l}\n`); }, err: (l) => { err.push(`${l}\n`); } });
    return { code, out: out.join(''), err: err.join('') };
  } finally {
    Object.assign(console, saved);
    for (const [k, v] of savedEnv) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

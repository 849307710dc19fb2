// `webdata <args>` in this process (runCliInProcess): src/cli/main.ts's `main` with its lines
// captured, the console captured too (what a command prints itself), and `env` set for the call
// only. What a usage or help case proves does not need a process of its own (bin/webdata.js only
// sets process.exitCode from main's answer). What a user runs, the compiled CLI in a process of
// its own, is runCliProcess, the one copy every test uses.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
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

export interface CliProcessRun { code: number | null; out: string; err: string }

export interface CliProcessOptions {
  /** Added to this process's environment, or the whole environment with `cleanEnv`. */
  env?: NodeJS.ProcessEnv;
  /** Only PATH, HOME and `env`: what a user's shell with nothing exported gives. */
  cleanEnv?: boolean;
  cwd?: string;
  /** Killed (and rejected, naming the command and its output) past this; generous by default. */
  timeoutMs?: number;
}

const BIN = new URL('../../bin/webdata.js', import.meta.url);

/** `webdata <args>` as a user runs it: bin/webdata.js (the compiled CLI) in a process of its own. */
export function runCliProcess(args: string[], options: CliProcessOptions = {}): Promise<CliProcessRun> {
  return runNode([fileURLToPath(BIN), ...args], options);
}

/** `node <args>` with its output collected; never blocks this process's event loop (a test's worker may answer the child). */
export function runNode(args: string[], options: CliProcessOptions = {}): Promise<CliProcessRun> {
  const base = options.cleanEnv ? { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' } : process.env;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: options.cwd, env: { ...base, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => { out += c.toString(); });
    child.stderr.on('data', (c: Buffer) => { err += c.toString(); });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timed out: node ${args.join(' ')}\n${out}\n${err}`));
    }, options.timeoutMs ?? 240_000);
    // 'close', not 'exit': at 'exit' the child's stdout may still hold unread output.
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

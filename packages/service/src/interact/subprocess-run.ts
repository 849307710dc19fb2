// Runs one command for interact with a hard timeout: the whole process group is killed,
// and the output so far is kept.
import { spawn } from 'node:child_process';

export interface ProcessOutcome {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  killed: boolean;
  /** Set when the command could not be started at all. */
  spawnError?: Error;
}

const MAX_OUTPUT = 1024 * 1024;

/** A line the runner writes to stderr once set up; the caller's timeout starts from it. */
export const READY_MARKER = '__WEBDATA_READY__';
const STARTUP_LIMIT_MS = 60_000;

export function runProcess(
  command: string,
  args: string[],
  opts: { env: NodeJS.ProcessEnv; stdin?: string; timeoutMs: number; cwd?: string; waitForReady?: boolean },
): Promise<ProcessOutcome & { started: boolean }> {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let killed = false;
    let started = !opts.waitForReady;
    const child = spawn(command, args, { env: opts.env, cwd: opts.cwd, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    const kill = () => {
      killed = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    let timer = setTimeout(kill, started ? opts.timeoutMs : STARTUP_LIMIT_MS);
    child.stdout.on('data', (c: Buffer) => { if (stdout.length < MAX_OUTPUT) stdout += c.toString(); });
    child.stderr.on('data', (c: Buffer) => {
      if (stderr.length < MAX_OUTPUT) stderr += c.toString();
      if (!started && stderr.includes(`${READY_MARKER}\n`)) {
        started = true;
        stderr = stderr.replace(`${READY_MARKER}\n`, '');
        clearTimeout(timer);
        timer = setTimeout(kill, opts.timeoutMs);
      }
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, exitCode: null, killed: false, spawnError: err, started });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, exitCode: killed ? null : code, killed, started });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.stdin ?? '');
  });
}

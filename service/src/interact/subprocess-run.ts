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

export function runProcess(
  command: string,
  args: string[],
  opts: { env: NodeJS.ProcessEnv; stdin?: string; timeoutMs: number; cwd?: string },
): Promise<ProcessOutcome> {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let killed = false;
    const child = spawn(command, args, { env: opts.env, cwd: opts.cwd, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    const timer = setTimeout(() => {
      killed = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, opts.timeoutMs);
    child.stdout.on('data', (c: Buffer) => { if (stdout.length < MAX_OUTPUT) stdout += c.toString(); });
    child.stderr.on('data', (c: Buffer) => { if (stderr.length < MAX_OUTPUT) stderr += c.toString(); });
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, exitCode: null, killed: false, spawnError: err });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, exitCode: killed ? null : code, killed });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.stdin ?? '');
  });
}

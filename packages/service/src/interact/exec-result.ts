// The outcome of one interact execution (reference 2.3, minus the live-view URLs).
export interface ExecResult {
  stdout: string | null;
  stderr: string | null;
  result: string | null;
  exitCode: number | null;
  killed: boolean;
  error?: string;
}

export function killedResult(partial: { stdout?: string; stderr?: string }, timeoutSec: number): ExecResult {
  return {
    stdout: partial.stdout ?? '',
    stderr: partial.stderr ?? '',
    result: null,
    exitCode: null,
    killed: true,
    error: `Execution timed out after ${timeoutSec} s and was killed`,
  };
}

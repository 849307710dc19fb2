// Failures of a `webdata` command as one line: what failed and how to fix it. Exit 2 for usage
// (bad flags or input), 1 for failures (Temporal unreachable, unknown run, store down...).
// The stack trace is printed only with --debug (or WEBDATA_DEBUG=1).
// Temporal's errors are recognized by name: this module loads with `main`, before any SDK.

export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** A failure whose message already says what failed and how to fix it. */
export class CliError extends Error {
  constructor(message: string, readonly exitCode: number = EXIT_FAILURE, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CliError';
  }
}

/** A bad flag, argument or input: exit 2. */
export class UsageError extends CliError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, EXIT_USAGE, options);
    this.name = 'UsageError';
  }
}

/** One line: newlines and runs of spaces folded. */
export function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replace(/\s{2,}/g, ' ').trim();
}

/** postgres://user:secret@host/db → postgres://user:***@host/db */
export function redactSpec(spec: string): string {
  return spec.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/:@]*):[^@/]*@/i, '$1:***@');
}

/**
 * An error and its causes in one line, outermost first: "Failed to start Workflow: search
 * attribute WebdataTenant is not defined". A gRPC error gives its `details` (the server's own
 * words); a cause whose text an outer one already says is left out.
 */
export function causeChain(err: unknown): string {
  const parts: string[] = [];
  const seen = new Set<unknown>();
  for (let e = err; e !== undefined && e !== null && !seen.has(e) && parts.length < 10; e = (e as { cause?: unknown }).cause) {
    seen.add(e);
    const { details, message } = e as { details?: unknown; message?: unknown };
    const text = oneLine(typeof details === 'string' && details !== '' ? details : typeof message === 'string' ? message : String(e));
    if (text !== '' && !parts.some((p) => p.includes(text))) parts.push(text);
    if (typeof e !== 'object') break;
  }
  return parts.join(': ');
}

/** The message and exit code of any error a command threw. */
export function explain(err: unknown, command: string): { message: string; exitCode: number } {
  const help = command ? `webdata ${command} --help` : 'webdata --help';
  if (err instanceof CliError) return { message: oneLine(err.message), exitCode: err.exitCode };
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_')) {
    return { message: `${oneLine((err as Error).message)} (see ${help})`, exitCode: EXIT_USAGE };
  }
  const e = (err ?? {}) as { name?: string; scheduleId?: string; workflowId?: string; details?: string; message?: string; metadata?: unknown };
  if (e.name === 'ScheduleAlreadyRunning') {
    return { message: `schedule ${e.scheduleId} already exists: pick another id, or remove it first with \`webdata schedule delete ${e.scheduleId}\``, exitCode: EXIT_FAILURE };
  }
  if (e.name === 'ScheduleNotFoundError') {
    return { message: `no schedule ${e.scheduleId} in this namespace: \`webdata schedule list\` shows the ids`, exitCode: EXIT_FAILURE };
  }
  if (e.name === 'WorkflowNotFoundError') {
    return { message: `no run with workflow id ${e.workflowId} in this namespace: check the id (the Temporal UI lists runs)`, exitCode: EXIT_FAILURE };
  }
  if (e.name === 'SearchAttributeMissingError') {
    // Its message names the attribute and the command that registers it.
    return { message: oneLine(e.message ?? ''), exitCode: EXIT_FAILURE };
  }
  if (typeof code === 'number' && typeof e.details === 'string' && e.metadata) {
    return { message: `Temporal refused the request: ${oneLine(e.details || e.message || '')}`, exitCode: EXIT_FAILURE };
  }
  return { message: `${causeChain(err) || 'failed'} (run with --debug for details)`, exitCode: EXIT_FAILURE };
}

/** Prints the failure of `webdata <command>` (stack with debug) and returns the exit code. */
export function reportError(err: unknown, command: string, debug: boolean, printError: (line: string) => void = (line) => console.error(line)): number {
  const { message, exitCode } = explain(err, command);
  printError(`webdata${command ? ` ${command}` : ''}: ${message}`);
  if (debug) printError(err instanceof Error ? err.stack ?? err.message : String(err));
  return exitCode;
}

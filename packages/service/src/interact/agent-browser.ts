// Locates the agent-browser CLI (installed by scripts/install-interact-deps.sh) and runs
// `bash` interact code with it pointed at the session's Chromium over CDP.
import { accessSync, constants } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { HttpError } from '../core/http-error.js';
import { killedResult, type ExecResult } from './exec-result.js';
import { runProcess } from './subprocess-run.js';

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** AGENT_BROWSER_PATH, the install script's prefix, or `agent-browser` on PATH. */
export function findAgentBrowser(): string | undefined {
  if (process.env.AGENT_BROWSER_PATH) return executable(process.env.AGENT_BROWSER_PATH) ? process.env.AGENT_BROWSER_PATH : undefined;
  const home = process.env.AGENT_BROWSER_HOME ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'webdata-temporal', 'agent-browser');
  const arch = process.arch === 'arm64' ? 'arm64' : 'x64';
  const candidates = [
    join(home, 'node_modules', 'agent-browser', 'bin', `agent-browser-${process.platform}-${arch}`),
    join(home, 'node_modules', '.bin', 'agent-browser'),
    ...(process.env.PATH ?? '').split(delimiter).filter(Boolean).map((d) => join(d, 'agent-browser')),
  ];
  return candidates.find(executable);
}

function sessionEnv(sessionId: string): NodeJS.ProcessEnv {
  // One agent-browser daemon per session, kept apart from any other use of the CLI.
  return { ...process.env, AGENT_BROWSER_SESSION: `wd-${sessionId}`, AGENT_BROWSER_NAMESPACE: 'webdata' };
}

export async function runBash(code: string, sessionId: string, cdpPort: number, timeoutSec: number): Promise<ExecResult> {
  const binary = findAgentBrowser();
  if (!binary) {
    throw new HttpError(502, 'agent-browser CLI is not installed (run scripts/install-interact-deps.sh)', { code: 'INTERACT_EXECUTION_FAILED' });
  }
  const bin = await mkdtemp(join(tmpdir(), 'webdata-ab-'));
  try {
    // `agent-browser` on PATH is a wrapper that always targets this session's browser.
    const wrapper = join(bin, 'agent-browser');
    await writeFile(wrapper, `#!/bin/sh\nexec '${binary.replace(/'/g, `'\\''`)}' --cdp ${cdpPort} "$@"\n`);
    await chmod(wrapper, 0o755);
    const env = sessionEnv(sessionId);
    env.PATH = `${bin}${delimiter}${env.PATH ?? ''}`;
    const outcome = await runProcess('bash', ['-s'], { env, stdin: code, timeoutMs: timeoutSec * 1000 });
    if (outcome.spawnError) throw new HttpError(502, `bash is not available: ${outcome.spawnError.message}`, { code: 'INTERACT_EXECUTION_FAILED' });
    if (outcome.killed) return killedResult(outcome, timeoutSec);
    const failed = outcome.exitCode !== 0;
    return {
      stdout: outcome.stdout,
      stderr: outcome.stderr,
      // For bash the result is an alias of stdout (reference 2.3).
      result: outcome.stdout,
      exitCode: outcome.exitCode,
      killed: false,
      ...(failed ? { error: outcome.stderr.trim().split('\n').pop() || `bash exited with ${outcome.exitCode}` } : {}),
    };
  } finally {
    await rm(bin, { recursive: true, force: true });
  }
}

/** Stops the session's agent-browser daemon; with --cdp this disconnects without closing Chromium. */
export async function stopAgentBrowser(sessionId: string, cdpPort: number): Promise<void> {
  const binary = findAgentBrowser();
  if (!binary) return;
  await runProcess(binary, ['--cdp', String(cdpPort), 'close'], { env: sessionEnv(sessionId), timeoutMs: 10_000 });
}

// Runs interact `python` code: python3 with Playwright for Python, connected over CDP to
// the session's Chromium, one subprocess per call.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HttpError } from '../core/http-error.js';
import { killedResult, type ExecResult } from './exec-result.js';
import { runProcess } from './subprocess-run.js';

// tsc copies no .py file into lib/: the runner is read from src/, which the package ships, at
// the same depth from lib/interact/ as from src/interact/.
const RUNNER = fileURLToPath(new URL('../../src/interact/python_runner.py', import.meta.url));

export async function runPython(code: string, cdpEndpoint: string, targetId: string, timeoutSec: number): Promise<ExecResult> {
  const dir = await mkdtemp(join(tmpdir(), 'webdata-py-'));
  const resultFile = join(dir, 'result.json');
  try {
    const python = process.env.PYTHON ?? 'python3';
    const outcome = await runProcess(python, [RUNNER], {
      env: {
        ...process.env,
        WEBDATA_CDP_ENDPOINT: cdpEndpoint,
        WEBDATA_TARGET_ID: targetId,
        WEBDATA_RESULT_FILE: resultFile,
        PYTHONUNBUFFERED: '1',
        PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1',
        // Playwright's own temporary files (its driver's artifacts folder) go in this call's
        // folder, removed below even when the call was killed.
        TMPDIR: dir,
      },
      stdin: code,
      timeoutMs: timeoutSec * 1000,
      waitForReady: true,
    });
    if (outcome.spawnError) {
      throw new HttpError(502, `Python is not available for interact: ${outcome.spawnError.message}`, { code: 'INTERACT_EXECUTION_FAILED' });
    }
    if (outcome.killed && !outcome.started) {
      throw new HttpError(502, 'Python execution environment did not connect to the session in time', { code: 'INTERACT_EXECUTION_FAILED' });
    }
    if (outcome.killed) return killedResult(outcome, timeoutSec);
    if (/ModuleNotFoundError: No module named 'playwright'/.test(outcome.stderr)) {
      throw new HttpError(502, 'Playwright for Python is not installed (run scripts/install-interact-deps.sh)', { code: 'INTERACT_EXECUTION_FAILED' });
    }
    let parsed: { result: string | null; error?: string } | undefined;
    try {
      parsed = JSON.parse(await readFile(resultFile, 'utf8')) as { result: string | null; error?: string };
    } catch {
      parsed = undefined;
    }
    const exitCode = outcome.exitCode;
    const error = parsed?.error ?? (exitCode !== 0 ? lastLine(outcome.stderr) || `python exited with ${exitCode}` : undefined);
    return {
      stdout: outcome.stdout,
      stderr: outcome.stderr,
      result: parsed?.result ?? null,
      exitCode,
      killed: false,
      ...(error ? { error } : {}),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function lastLine(text: string): string {
  return text.trim().split('\n').pop() ?? '';
}

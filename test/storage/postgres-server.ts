// The PostgreSQL server the tests use: WEBDATA_TEST_POSTGRES_URL when set (CI), else the
// throwaway one of scripts/postgres.sh, started here if needed and stopped again after.
// No silent skip: if no server can be had, the tests fail with the script's own error.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const SCRIPT = fileURLToPath(new URL('../../scripts/postgres.sh', import.meta.url));
const run = promisify(execFile);

export interface TestServer {
  url: string;
  /** Stops the server if this process started it. */
  release(): Promise<void>;
}

async function script(command: string): Promise<{ ok: true; url: string } | { ok: false; error: string }> {
  try {
    const { stdout } = await run('bash', [SCRIPT, command], { timeout: 600_000, maxBuffer: 16 * 1024 * 1024 });
    return { ok: true, url: stdout.trim().split('\n').pop() ?? '' };
  } catch (err) {
    const e = err as Error & { stderr?: string; code?: number };
    return { ok: false, error: `scripts/postgres.sh ${command} failed (exit ${e.code}): ${e.stderr?.trim() || e.message}` };
  }
}

export async function testServer(): Promise<TestServer> {
  const fromEnv = process.env.WEBDATA_TEST_POSTGRES_URL?.trim();
  if (fromEnv) return { url: fromEnv, release: async () => undefined };
  const running = await script('url');
  if (running.ok && running.url) return { url: running.url, release: async () => undefined };
  const started = await script('start');
  if (!started.ok) throw new Error(`PostgreSQL is needed for these tests and could not be started. ${started.error}`);
  return {
    url: started.url,
    release: async () => {
      const stopped = await script('stop');
      if (!stopped.ok) throw new Error(stopped.error);
    },
  };
}

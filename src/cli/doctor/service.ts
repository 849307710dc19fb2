// The service side of `webdata doctor`: the worker's settings parse, and the service at
// WEBDATA_API_URL accepts WEBDATA_API_KEY (one cheap authenticated GET: the team's credit usage).
import { isWebDataApiError, WebDataClient } from 'webdata-client';
import { readWorkerSettings, WorkerSettingsError } from '../../config/worker-env.js';
import { causeChain } from '../errors.js';
import type { CheckResult } from './check.js';

const SERVICE_TIMEOUT_MS = 5_000;

/** Every WEBDATA_* setting `webdata worker` reads is valid (the worker refuses to start otherwise). */
export function checkWorkerSettings(env: NodeJS.ProcessEnv): CheckResult {
  const name = 'worker settings';
  try {
    const s = readWorkerSettings(env);
    return { name, status: 'ok', detail: `task queue ${s.taskQueue}, store ${s.store}${s.deployment ? `, deployment ${s.deployment.deploymentName} build ${s.deployment.buildId}` : ''}` };
  } catch (err) {
    if (!(err instanceof WorkerSettingsError)) throw err;
    return { name, status: 'fail', detail: `\`webdata worker\` would refuse to start: ${err.problems.join('; ')}.`, fix: 'set them as the README\'s Configuration says' };
  }
}

export async function checkService(env: NodeJS.ProcessEnv): Promise<CheckResult> {
  const name = 'service';
  const url = env.WEBDATA_API_URL?.trim();
  const key = env.WEBDATA_API_KEY?.trim();
  if (!url) return { name, status: 'fail', detail: 'WEBDATA_API_URL is not set: the worker does not know where the service is.', fix: 'set WEBDATA_API_URL to its base URL, e.g. https://api.example.com' };
  if (!key) return { name, status: 'fail', detail: `WEBDATA_API_KEY is not set: ${url} would refuse every request.`, fix: 'set WEBDATA_API_KEY to your team\'s API key' };
  let client: WebDataClient;
  try {
    client = new WebDataClient({ baseUrl: url, apiKey: key, timeoutMs: SERVICE_TIMEOUT_MS, holdOnRetryAfter: false });
  } catch (err) {
    return { name, status: 'fail', detail: `WEBDATA_API_URL ${url}: ${causeChain(err)}`, fix: 'set WEBDATA_API_URL to an http(s) URL, e.g. https://api.example.com' };
  }
  try {
    const usage = await client.getCreditUsage();
    const left = typeof usage.data?.remainingCredits === 'number' ? ` (${usage.data.remainingCredits} credits left)` : '';
    return { name, status: 'ok', detail: `${url} accepts the key${left}` };
  } catch (err) {
    if (!isWebDataApiError(err)) throw err;
    if (err.kind === 'unauthorized' || err.kind === 'forbidden') {
      return { name, status: 'fail', detail: `${url} refused the key (${err.status}): ${err.message}.`, fix: 'set WEBDATA_API_KEY to a key of your team (the service\'s dashboard lists them)' };
    }
    if (err.kind === 'network' || err.kind === 'timeout') {
      return { name, status: 'fail', detail: `cannot reach the service at ${url}: ${causeChain(err)}.`, fix: 'check WEBDATA_API_URL and that the service is up and reachable from here' };
    }
    if (err.kind === 'not_found' || err.kind === 'not_available') {
      // The open-source server may lack the team routes: the key was not refused, so say what is known.
      return { name, status: 'warn', detail: `${url} answers, but has no /v2/team/credit-usage (${err.status}): the key could not be checked.` };
    }
    return { name, status: 'fail', detail: `${url} answered /v2/team/credit-usage with ${err.status ?? err.kind}: ${err.message}.` };
  } finally {
    await client.close();
  }
}

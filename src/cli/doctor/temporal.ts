// The Temporal side of `webdata doctor`: the server answers, the namespace exists, its search
// attributes are the package's, and whether the server can share task queues by tenant.
import type { Client } from '@temporalio/client';
import { checkSearchAttributes, namesWithTypes, registerCommand } from '../../coordination/search-attribute-check.js';
import { SEARCH_ATTRIBUTES } from '../../search-attributes.js';
import { connectClient, type CliConnection } from '../connect.js';
import { causeChain } from '../errors.js';
import type { CheckResult } from './check.js';

const NOT_FOUND = 5; // gRPC status

/** Connects as every command does, then reads the namespace and the server's version. */
export async function checkTemporal(env: NodeJS.ProcessEnv): Promise<{ result: CheckResult; conn?: CliConnection; serverVersion?: string }> {
  const name = 'temporal';
  let conn: CliConnection;
  try {
    conn = await connectClient(env);
  } catch (err) {
    return { result: { name, status: 'fail', detail: causeChain(err) } };
  }
  try {
    await conn.client.workflowService.describeNamespace({ namespace: conn.namespace });
  } catch (err) {
    const missing = (err as { code?: unknown }).code === NOT_FOUND;
    const result: CheckResult = missing
      ? { name, status: 'fail', detail: `${conn.address} answers, but has no namespace ${conn.namespace}.`, fix: `set TEMPORAL_NAMESPACE to yours, or create it: temporal operator namespace create --namespace ${conn.namespace}` }
      : { name, status: 'fail', detail: `${conn.address} answers, but describing namespace ${conn.namespace} failed: ${causeChain(err)}` };
    await conn.close();
    return { result };
  }
  const serverVersion = await conn.client.workflowService.getSystemInfo({}).then((info) => info.serverVersion || undefined, () => undefined);
  const version = serverVersion ? ` (server ${serverVersion})` : '';
  return { result: { name, status: 'ok', detail: `${conn.address}, namespace ${conn.namespace}${version}` }, conn, serverVersion };
}

/** Every search attribute the package sets is registered with its type. */
export async function checkNamespaceSearchAttributes(client: Client, namespace: string): Promise<CheckResult> {
  const name = 'search attributes';
  const { missing, wrongType } = await checkSearchAttributes(client.connection, namespace);
  if (wrongType.length > 0) {
    const listed = wrongType.map((w) => `${w.key.name} is ${w.actual}, the package sets ${namesWithTypes([w.key])}`).join('; ');
    const remove = wrongType.map((w) => `temporal operator search-attribute remove --namespace ${namespace} --name ${w.key.name}`).join(' && ');
    return { name, status: 'fail', detail: `namespace ${namespace}: ${listed}${missing.length > 0 ? `; missing: ${namesWithTypes(missing)}` : ''}.`, fix: `remove, then register again (removing hides the attribute from existing runs' queries): ${remove} && ${registerCommand(namespace, [...wrongType.map((w) => w.key), ...missing])}` };
  }
  if (missing.length > 0) {
    return { name, status: 'fail', detail: `namespace ${namespace} lacks ${namesWithTypes(missing)}: every run start is refused.`, fix: registerCommand(namespace, missing) };
  }
  return { name, status: 'ok', detail: `namespace ${namespace} has all ${SEARCH_ATTRIBUTES.length} the package sets, with their types` };
}


/** The first release of the Temporal server whose matching service dispatches by fairness key. */
const FAIRNESS_SINCE = [1, 29];

function atLeast(version: string, min: number[]): boolean | undefined {
  const m = /^v?(\d+)\.(\d+)/.exec(version);
  if (!m) return undefined;
  const [major, minor] = [Number(m[1]), Number(m[2])];
  return major > min[0] || (major === min[0] && minor >= min[1]);
}

/**
 * Fairness is the server's dynamic config (matching.enableFairness), which no client API shows:
 * what doctor can say is whether this server has it at all, and how to switch it on.
 */
export function checkFairness(serverVersion: string | undefined): CheckResult {
  const name = 'fairness';
  const how = 'dynamic config matching.enableFairness=true and matching.useNewMatcher=true';
  const supported = serverVersion ? atLeast(serverVersion, FAIRNESS_SINCE) : undefined;
  if (supported === false) {
    return { name, status: 'warn', detail: `server ${serverVersion} predates fairness (1.29): each task queue serves tasks in arrival order, whatever their tenant or priority.`, fix: `upgrade the server to 1.29 or later and set ${how}` };
  }
  const server = serverVersion ? `server ${serverVersion}` : 'the server (version not reported)';
  return { name, status: 'ok', detail: `${server} supports fairness by tenant, on when it runs with ${how} (webdata dev does; no client API shows the setting): off, tasks go in arrival order` };
}

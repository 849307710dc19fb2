import { parseArgs } from 'node:util';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { cancelPipeline, getProgress } from '../../client/pipeline.js';
import { connectClient, type CliConnection } from '../connect.js';
import { CliError, UsageError } from '../errors.js';
import { renderProgress } from '../progress-view.js';
import { tenantRunsFor } from '../tenant-flag.js';

function notFound(conn: CliConnection, id: string, err: unknown): CliError {
  return new CliError(`no run with workflow id ${id} in namespace ${conn.namespace} at ${conn.address}: check the id (\`webdata run\` prints it; the Temporal UI lists runs) or TEMPORAL_ADDRESS/TEMPORAL_NAMESPACE`, 1, { cause: err });
}

function oneId(command: string, positionals: string[]): string {
  if (positionals.length !== 1) throw new UsageError(`${positionals.length === 0 ? 'a workflow id is required' : `one workflow id, got ${positionals.length}`}: webdata ${command} <workflow-id>`);
  return positionals[0];
}

export async function statusCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { json: { type: 'boolean' }, tenant: { type: 'string' }, limit: { type: 'string' } } });
  if (values.tenant !== undefined) return tenantStatus(values.tenant, positionals, values);
  const id = oneId('status', positionals);
  const conn = await connectClient();
  try {
    let progress;
    try {
      progress = await getProgress(conn.client, id);
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) throw notFound(conn, id, err);
      throw err;
    }
    console.log(values.json ? JSON.stringify(progress) : renderProgress(progress).join('\n'));
    return 0;
  } finally {
    await conn.close();
  }
}

/** `webdata status --tenant T`: the tenant's runs, newest first. */
async function tenantStatus(tenant: string, positionals: string[], values: { json?: boolean; limit?: string }): Promise<number> {
  if (positionals.length > 0) throw new UsageError('--tenant lists runs: give no workflow id (webdata status --tenant NAME [--limit N])');
  const limit = values.limit === undefined ? 100 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit: must be a whole number of 1 or more, got "${values.limit}"`);
  const listTenantRuns = await tenantRunsFor(tenant);
  const conn = await connectClient();
  try {
    const runs = await listTenantRuns(conn.client, tenant, { limit });
    if (values.json) {
      console.log(JSON.stringify(runs));
      return 0;
    }
    if (runs.length === 0) {
      console.log(`no runs of tenant ${tenant} in namespace ${conn.namespace}`);
      return 0;
    }
    console.log(`runs of tenant ${tenant} (newest first):`);
    for (const r of runs) {
      console.log(`  ${r.workflowId}  ${r.status.toLowerCase()}  stage ${r.stage ?? '-'}  ${r.pages ?? 0} pages  ${r.credits ?? 0} credits  started ${r.startTime.toISOString()}`);
    }
    return 0;
  } finally {
    await conn.close();
  }
}

const ENDED: Record<string, string> = {
  COMPLETED: 'completed',
  FAILED: 'failed',
  CANCELLED: 'was cancelled',
  TERMINATED: 'was terminated',
  CONTINUED_AS_NEW: 'continued as new',
  TIMED_OUT: 'timed out',
};

/** How a run ended, or undefined while it runs. */
async function endedAs(client: Client, id: string): Promise<{ how: string; at?: Date } | undefined> {
  const description = await client.workflow.getHandle(id).describe();
  const how = ENDED[description.status.name];
  return how ? { how, at: description.closeTime } : undefined;
}

/**
 * Cancels a running run. A run that already ended is left alone: the command says how it ended
 * and exits 0 (there is nothing to cancel; scripts can run it unconditionally).
 */
export async function cancelCommand(argv: string[]): Promise<number> {
  const { positionals } = parseArgs({ args: argv, allowPositionals: true, options: {} });
  const id = oneId('cancel', positionals);
  const conn = await connectClient();
  try {
    try {
      const ended = await endedAs(conn.client, id);
      if (ended) {
        console.log(`run ${id} already ended: it ${ended.how}${ended.at ? ` at ${ended.at.toISOString()}` : ''}; nothing to cancel`);
        return 0;
      }
      await cancelPipeline(conn.client, id);
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) throw notFound(conn, id, err);
      throw err;
    }
    console.log(`cancellation requested for ${id}: running jobs are cancelled and browser sessions stopped (\`webdata status ${id}\` shows it)`);
    return 0;
  } finally {
    await conn.close();
  }
}

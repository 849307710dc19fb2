// Runs of one tenant, from Temporal's visibility (the WebdataTenant search attribute every
// start sets): what `webdata status --tenant` lists and `webdata export --tenant` reads.
import type { Client } from '@temporalio/client';
import { CREDITS, OUTCOME, PAGES, STAGE, TENANT } from '../search-attributes.js';
import { PIPELINE_WORKFLOW_TYPE } from '../workflows/definitions.js';
import { GOVERNOR_WORKFLOW_TYPE } from '../shared/team-governor-messages.js';
import { LEDGER_WORKFLOW_TYPE } from '../shared/tenant-ledger-messages.js';
import { tenantSchema } from '../shared/tenant.js';

export interface TenantRun {
  workflowId: string;
  runId: string;
  /** Temporal's execution status: RUNNING, COMPLETED, FAILED, CONTINUED_AS_NEW... */
  status: string;
  stage?: string;
  outcome?: string;
  pages?: number;
  credits?: number;
  startTime: Date;
  closeTime?: Date;
}

/** A visibility query for the tenant's runs; the tenant is validated first (it is quoted into the query). */
export function tenantQuery(tenant: string, extra?: string): string {
  const checked = tenantSchema.safeParse(tenant);
  if (!checked.success) throw new Error(`tenant: ${checked.error.issues[0]?.message ?? 'invalid'}`);
  return `${TENANT.name} = '${tenant}'${extra ? ` AND ${extra}` : ''}`;
}

/** The tenant's pipeline runs still running (the ones a change of its budget is signalled to). */
export function runningPipelinesQuery(tenant: string): string {
  return tenantQuery(tenant, `WorkflowType = '${PIPELINE_WORKFLOW_TYPE}' AND ExecutionStatus = 'Running'`);
}

/**
 * The package's own long-lived workflows: a tenant's credit ledger carries its WebdataTenant too,
 * and neither it nor a team's governor is a run of the tenant's.
 */
const INFRASTRUCTURE = `WorkflowType NOT IN ('${LEDGER_WORKFLOW_TYPE}', '${GOVERNOR_WORKFLOW_TYPE}')`;

/** The tenant's runs (pipelines, parses: not its ledger), newest first, at most `limit` (default 100). */
export async function listTenantRuns(client: Client, tenant: string, options: { limit?: number; completedOnly?: boolean } = {}): Promise<TenantRun[]> {
  const limit = options.limit ?? 100;
  const query = tenantQuery(tenant, options.completedOnly ? `${INFRASTRUCTURE} AND ExecutionStatus = 'Completed'` : INFRASTRUCTURE);
  const runs: TenantRun[] = [];
  for await (const w of client.workflow.list({ query })) {
    const attrs = w.typedSearchAttributes;
    runs.push({
      workflowId: w.workflowId,
      runId: w.runId,
      status: w.status.name,
      stage: attrs.get(STAGE),
      outcome: attrs.get(OUTCOME),
      pages: attrs.get(PAGES),
      credits: attrs.get(CREDITS),
      startTime: w.startTime,
      closeTime: w.closeTime,
    });
    if (runs.length >= limit) break;
  }
  return runs;
}

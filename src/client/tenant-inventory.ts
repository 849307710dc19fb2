// Everything of one tenant, found the way an erasure needs it: every workflow execution that
// carries its WebdataTenant (every type, every status, every run of a continue-as-new chain),
// its schedules, the store runs its runs wrote and the change series they were recorded in.
// Read only: eraseTenant (erase-tenant.ts) acts on what this finds.
import { ScheduleNotFoundError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import type { Counts, DocumentStore } from 'webdata-storage';
import { seriesRuns } from '../activities/series-index.js';
import { TENANT } from '../search-attributes.js';
import { LEDGER_WORKFLOW_TYPE, ledgerWorkflowId } from '../shared/tenant-ledger-messages.js';
import { DEFAULT_TENANT } from '../shared/tenant.js';
import { PARSE_DOCUMENTS_WORKFLOW_TYPE, PIPELINE_WORKFLOW_TYPE } from '../workflows/definitions.js';
import { eachLimited } from './each-limited.js';
import { tenantQuery } from './tenant-runs.js';

/** The store run erasure records go to: `:` is outside a run id's rule, so no run can write there. */
export const ERASURES_STORE_RUN = 'webdata:erasures';

export interface TenantExecution {
  workflowId: string;
  runId: string;
  type: string;
  /** Temporal's status name: RUNNING, COMPLETED, CONTINUED_AS_NEW... */
  status: string;
}

export interface TenantStoreRun extends Counts {
  runId: string;
}

export interface KeptStoreRun {
  runId: string;
  /** `workflow id`: it is also another tenant's workflow id (that run's default store run); `copies`: another tenant's series run points at its pages. */
  why: 'workflow id' | 'copies';
}

export interface TenantSeries {
  name: string;
  /** Index entries (completed runs) of the tenant's workflows. */
  ofTenant: number;
  /** Entries of another tenant's runs: the series is kept (the store cannot remove single entries). */
  ofOthers: number;
  /** Entries whose workflow Temporal no longer has (past retention): taken as the tenant's when no other tenant's is there. */
  unknown: number;
}

export interface TenantInventory {
  tenant: string;
  executions: TenantExecution[];
  /** Schedule ids whose runs are the tenant's. */
  schedules: string[];
  /** The store runs the tenant's runs wrote (with what each holds now); empty ones included. */
  storeRuns: TenantStoreRun[];
  /** Store runs of the tenant's runs that another tenant's data needs: kept, reported. */
  keptStoreRuns: KeptStoreRun[];
  series: TenantSeries[];
}

/** Requests in flight at once while reading the runs' inputs. */
export const PARALLEL = 8;

const OWN_TYPES = new Set([PIPELINE_WORKFLOW_TYPE, PARSE_DOCUMENTS_WORKFLOW_TYPE]);

/** Every execution of the tenant in visibility (all types and statuses), plus its ledger by id when visibility lags. */
export async function tenantExecutions(client: Client, tenant: string): Promise<TenantExecution[]> {
  const out = new Map<string, TenantExecution>();
  for await (const w of client.workflow.list({ query: tenantQuery(tenant) })) {
    out.set(w.runId, { workflowId: w.workflowId, runId: w.runId, type: w.type, status: w.status.name });
  }
  try {
    const d = await client.workflow.getHandle(ledgerWorkflowId(tenant)).describe();
    if (d.type === LEDGER_WORKFLOW_TYPE && d.typedSearchAttributes.get(TENANT) === tenant && !out.has(d.runId)) {
      out.set(d.runId, { workflowId: d.workflowId, runId: d.runId, type: d.type, status: d.status.name });
    }
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
  }
  return [...out.values()];
}

/** The arguments a run was started with, decoded by the client's own data converter (a codec included). */
export async function startArguments(client: Client, workflowId: string, runId: string): Promise<unknown[] | undefined> {
  let res;
  try {
    res = await client.workflowService.getWorkflowExecutionHistory({ namespace: client.options.namespace, execution: { workflowId, runId }, maximumPageSize: 1 });
  } catch (err) {
    if ((err as { code?: number }).code === 5) return undefined; // NOT_FOUND: deleted already
    throw err;
  }
  const payloads = (res.history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads ?? []) as Payload[];
  const converter = client.workflow.options.loadedDataConverter;
  let decoded = payloads;
  for (const codec of [...converter.payloadCodecs].reverse()) decoded = await codec.decode(decoded);
  return decoded.map((p) => converter.payloadConverter.fromPayload(p));
}

interface RunInputFields {
  runId?: unknown;
  tenant?: unknown;
  changes?: { series?: unknown };
}

/** A schedule's tenant: its action's WebdataTenant, else (a package schedule without it) its input's tenant. */
interface ScheduleTenant { tenant?: string; series?: string }

async function scheduleTenant(client: Client, scheduleId: string): Promise<ScheduleTenant> {
  const d = await client.schedule.getHandle(scheduleId).describe();
  const action = d.action;
  if (action.type !== 'startWorkflow') return {};
  const input = (action.args?.[0] ?? {}) as RunInputFields;
  const series = typeof input.changes?.series === 'string' ? input.changes.series : undefined;
  const attrs = action.typedSearchAttributes;
  const attr = attrs === undefined ? undefined : Array.isArray(attrs) ? attrs.find((p) => p.key.name === TENANT.name)?.value : attrs.get(TENANT);
  if (typeof attr === 'string') return { tenant: attr, series };
  if (!OWN_TYPES.has(action.workflowType)) return {};
  return { tenant: typeof input.tenant === 'string' ? input.tenant : DEFAULT_TENANT, series };
}

/** The workflow id's latest run belongs to another tenant (or to no run of the package). */
async function tenantOfWorkflow(client: Client, workflowId: string): Promise<string | null | undefined> {
  try {
    const d = await client.workflow.getHandle(workflowId).describe();
    return d.typedSearchAttributes.get(TENANT) ?? null;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

export interface InventoryOptions {
  /**
   * Store runs whose id starts with this are the tenant's too: a backend that names its runs'
   * store runs per tenant (input.runId) finds those Temporal no longer lists (past retention).
   */
  storeRunPrefix?: string;
}

/** Finds everything of the tenant; changes nothing. */
export async function tenantInventory(client: Client, store: DocumentStore, tenant: string, options: InventoryOptions = {}): Promise<TenantInventory> {
  const executions = await tenantExecutions(client, tenant);
  const workflowIds = new Set(executions.map((e) => e.workflowId));

  const schedules: string[] = [];
  const seriesNames = new Set<string>();
  for await (const s of client.schedule.list()) {
    const of = await scheduleTenant(client, s.scheduleId).catch((err: unknown): ScheduleTenant => {
      if (err instanceof ScheduleNotFoundError) return {}; // deleted since the listing
      throw err;
    });
    if (of.tenant !== tenant) continue;
    schedules.push(s.scheduleId);
    if (of.series) seriesNames.add(of.series);
  }

  // A run's store run is input.runId, else its workflow id (pipeline.ts, parse-documents.ts).
  const runIds = new Set<string>();
  await eachLimited(executions.filter((e) => OWN_TYPES.has(e.type)), PARALLEL, async (e) => {
    const args = await startArguments(client, e.workflowId, e.runId);
    if (!args) return;
    const input = (args[0] ?? {}) as RunInputFields;
    runIds.add(typeof input.runId === 'string' ? input.runId : e.workflowId);
    if (typeof input.changes?.series === 'string') seriesNames.add(input.changes.series);
  });

  const series: TenantSeries[] = [];
  // Runs of other tenants recorded in a series the tenant shares: their unchanged pages are stubs
  // pointing at the previous run's copy, which may be one of the tenant's.
  const othersRuns: string[] = [];
  for (const name of seriesNames) {
    const entries = await seriesRuns(store, name);
    if (entries.length === 0) continue;
    const counted = { ofTenant: 0, ofOthers: 0, unknown: 0 };
    for (const entry of entries) {
      if (workflowIds.has(entry.workflowId)) counted.ofTenant += 1;
      else {
        const other = await tenantOfWorkflow(client, entry.workflowId);
        if (other === undefined) counted.unknown += 1;
        else if (other === tenant) counted.ofTenant += 1;
        else {
          counted.ofOthers += 1;
          othersRuns.push(entry.runId);
        }
      }
    }
    series.push({ name, ...counted });
    // A series of this tenant alone: its entries' runs are the tenant's, also those Temporal no longer has.
    if (counted.ofOthers === 0) for (const entry of entries) runIds.add(entry.runId);
  }
  if (options.storeRunPrefix) {
    const prefix = options.storeRunPrefix;
    for (const r of await store.listRuns()) if (r.runId.startsWith(prefix)) runIds.add(r.runId);
  }
  const storeRuns: TenantStoreRun[] = [];
  const keptStoreRuns: KeptStoreRun[] = [];
  const copied = new Set<string>();
  for (const runId of othersRuns) {
    for await (const doc of store.readDocuments(runId)) {
      const from = (doc.copyOf as { runId?: unknown } | undefined)?.runId;
      if (typeof from === 'string' && runIds.has(from)) copied.add(from);
    }
  }
  for (const runId of runIds) {
    if (runId === ERASURES_STORE_RUN || runId.startsWith('series:')) continue;
    // A run id that is also another tenant's workflow id is that run's default store run too.
    if (!workflowIds.has(runId)) {
      const other = await tenantOfWorkflow(client, runId);
      if (other !== undefined && other !== tenant) {
        keptStoreRuns.push({ runId, why: 'workflow id' });
        continue;
      }
    }
    if (copied.has(runId)) {
      keptStoreRuns.push({ runId, why: 'copies' });
      continue;
    }
    storeRuns.push({ runId, ...(await store.count(runId)) });
  }

  return { tenant, executions, schedules, storeRuns, keptStoreRuns, series };
}

// The record that an erasure happened, kept in the store after the tenant's data is gone: when,
// why (a reason the caller gives), and how much of each kind was erased. Counts only: no URL, no
// run or series name (a backend's names may hold its customer's), no content.
import type { DocumentStore } from 'webdata-storage';
import { ERASURES_STORE_RUN } from './tenant-inventory.js';

export interface ErasureCounts {
  schedules: number;
  /** Workflow ids of the tenant's runs (pipelines, parses), not its ledger. */
  runs: number;
  /** Every run id: each run of a continue-as-new chain, the ledger's included. */
  executions: number;
  /** Runs still running that were cancelled; terminated: those that did not close in time. */
  cancelled: number;
  terminated: number;
  /** Store runs that held anything, and what they held. */
  storeRuns: number;
  documents: number;
  failures: number;
  links: number;
  series: number;
  ledger: number;
}

export interface ErasureRecord {
  /** `erasure:<tenant>:<iso time the erasure began>`. */
  url: string;
  tenant: string;
  at: string;
  /** `begun` is written before anything is deleted, `done` once the erasure ended. */
  status: 'begun' | 'done';
  reason?: string;
  counts: ErasureCounts;
}

export const recordUrl = (tenant: string, at: string): string => `erasure:${tenant}:${at}`;

export async function writeErasureRecord(store: DocumentStore, record: ErasureRecord): Promise<void> {
  // Keyed by status and url: a begun and a done record per erasure, each written once.
  await store.appendDocuments(ERASURES_STORE_RUN, record.status, [{
    url: record.url,
    kind: 'erasure',
    tenant: record.tenant,
    at: record.at,
    status: record.status,
    ...(record.reason !== undefined ? { reason: record.reason } : {}),
    counts: record.counts,
  }]);
}

/** Every erasure in the store, oldest first; one that began and never ended is `begun`. */
export async function listErasures(store: DocumentStore, tenant?: string): Promise<ErasureRecord[]> {
  const byUrl = new Map<string, ErasureRecord>();
  for await (const doc of store.readDocuments(ERASURES_STORE_RUN)) {
    if (doc.kind !== 'erasure' || (tenant !== undefined && doc.tenant !== tenant)) continue;
    const record: ErasureRecord = {
      url: doc.url,
      tenant: String(doc.tenant),
      at: String(doc.at),
      status: doc.status === 'done' ? 'done' : 'begun',
      ...(typeof doc.reason === 'string' ? { reason: doc.reason } : {}),
      counts: doc.counts as ErasureCounts,
    };
    const seen = byUrl.get(doc.url);
    if (!seen || record.status === 'done') byUrl.set(doc.url, record);
  }
  return [...byUrl.values()].sort((a, b) => a.at.localeCompare(b.at));
}

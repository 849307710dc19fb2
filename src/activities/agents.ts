// Agent, extract, parse and the team's queue and token usage as activities. What returns to
// the workflow stays small: ids, statuses, credits; answers and parsed documents go to the store.
import type {
  AgentRequest,
  ExtractRequest,
  HistoricalTokenUsageQuery,
  HistoricalTokenUsageResponse,
  ParseOptions,
  QueueStatusResponse,
  TokenUsageResponse,
} from 'webdata-contract';
import { refOf } from 'webdata-storage';
import { toDocumentInput } from './collect.js';
import { currentScope, whileHeartbeating } from './context.js';
import type { ActivityDeps } from './deps.js';
import { mapFailures } from './failures.js';

export interface AgentJobResult {
  id: string;
  status: string;
  creditsUsed: number;
  error?: string;
  /** Set once the job completed: the answer (`data`) is stored under the run as one document. */
  stored: boolean;
  ref: ReturnType<typeof refOf>;
}

export interface ParseActivityResult {
  url: string;
  title?: string;
  creditsUsed: number;
  stored: boolean;
  ref: ReturnType<typeof refOf>;
}

export function createAgentActivities(deps: ActivityDeps) {
  const { client, store } = deps;

  /** Stores a completed job's answer as one document (`agent:<id>` / `extract:<id>`), once. */
  async function storeAnswer(runId: string, kind: 'agent' | 'extract', id: string, res: { status: string; data?: unknown; [key: string]: unknown }): Promise<boolean> {
    if (res.status !== 'completed' || res.data === undefined) return false;
    const written = await store.appendDocuments(runId, `${kind}:${id}`, [{
      url: `${kind}:${id}`,
      kind,
      markdown: JSON.stringify(res.data, null, 2),
      json: res.data,
      metadata: { jobId: id, creditsUsed: res.creditsUsed, ...(res.sources !== undefined ? { sources: res.sources } : {}) },
    }]);
    // A retried call finds the answer already stored (append de-duplicates by URL).
    return written > 0 || (await store.count(runId, { jobId: `${kind}:${id}` })).documents > 0;
  }

  return {
    /** POST /v2/agent; returns the job id. Not idempotent on the service: a retried start may start a second job. */
    async startAgent(input: { body: AgentRequest }): Promise<{ id: string }> {
      const scope = currentScope();
      return mapFailures(async () => ({ id: (await client.startAgent(input.body, { signal: scope.signal })).id }));
    },

    /** GET /v2/agent/{id}; a completed answer is stored under `runId` (default: the workflow id). */
    async getAgent(input: { runId?: string; id: string }): Promise<AgentJobResult> {
      const scope = currentScope();
      return mapFailures(async () => {
        const res = await client.getAgent(input.id, { signal: scope.signal });
        const runId = input.runId ?? scope.workflowId();
        const stored = await storeAnswer(runId, 'agent', input.id, res);
        return { id: input.id, status: res.status, creditsUsed: res.creditsUsed, ...(res.error ? { error: String(res.error) } : {}), stored, ref: refOf(store, runId, { jobId: `agent:${input.id}` }) };
      });
    },

    async cancelAgent(input: { id: string }): Promise<{ cancelled: boolean }> {
      const scope = currentScope();
      return mapFailures(async () => ({ cancelled: (await client.cancelAgent(input.id, { signal: scope.signal })).success !== false }));
    },

    /** POST /v2/extract; returns the job id. */
    async startExtract(input: { body: ExtractRequest }): Promise<{ id: string }> {
      const scope = currentScope();
      return mapFailures(async () => ({ id: (await client.startExtract(input.body, { signal: scope.signal })).id }));
    },

    /** GET /v2/extract/{id}; a completed answer is stored under `runId` (default: the workflow id). */
    async getExtract(input: { runId?: string; id: string }): Promise<AgentJobResult> {
      const scope = currentScope();
      return mapFailures(async () => {
        const res = await client.getExtract(input.id, { signal: scope.signal });
        const runId = input.runId ?? scope.workflowId();
        const stored = await storeAnswer(runId, 'extract', input.id, res);
        return {
          id: input.id,
          status: res.status,
          creditsUsed: typeof res.creditsUsed === 'number' ? res.creditsUsed : -1,
          ...(res.error ? { error: String(res.error) } : {}),
          stored,
          ref: refOf(store, runId, { jobId: `extract:${input.id}` }),
        };
      });
    },

    /**
     * POST /v2/parse of a file on the worker's filesystem (`path`); the document is stored
     * under `runId`. A file over 50 MB or missing fails non-retryably (kind validation).
     */
    async parse(input: { runId?: string; path: string; filename?: string; contentType?: string; options?: ParseOptions }): Promise<ParseActivityResult> {
      const scope = currentScope();
      return mapFailures(async () => {
        const res = await whileHeartbeating(
          scope,
          (signal) => client.parse(input.path, { filename: input.filename, contentType: input.contentType, options: input.options }, { signal }),
          deps.heartbeatEveryMs,
        );
        const runId = input.runId ?? scope.workflowId();
        const meta = res.data.metadata ?? {};
        const doc = toDocumentInput('parse', { ...res.data, metadata: { ...meta, sourceURL: String(meta.sourceURL ?? meta.url ?? input.filename ?? input.path) } });
        const stored = doc ? (await store.appendDocuments(runId, `parse:${input.path}`, [doc])) > 0 : false;
        return {
          url: doc?.url ?? input.path,
          ...(meta.title ? { title: String(meta.title) } : {}),
          creditsUsed: typeof meta.creditsUsed === 'number' ? meta.creditsUsed : 1,
          stored,
          ref: refOf(store, runId, { jobId: `parse:${input.path}` }),
        };
      });
    },

    /**
     * Records a file that could not be parsed (after its retries) as a failure of the run, under
     * the same job id its document would have had (`parse:<path>`); idempotent by path.
     */
    async recordParseFailure(input: { runId: string; path: string; error: string; code?: string }): Promise<{ recorded: boolean }> {
      const written = await store.appendFailures(input.runId, `parse:${input.path}`, [{
        url: input.path,
        error: input.error,
        ...(input.code !== undefined ? { code: input.code } : {}),
      }]);
      return { recorded: written > 0 };
    },

    async getQueueStatus(): Promise<QueueStatusResponse> {
      const scope = currentScope();
      return mapFailures(() => client.getQueueStatus({ signal: scope.signal }));
    },

    async getTokenUsage(): Promise<TokenUsageResponse['data']> {
      const scope = currentScope();
      return mapFailures(async () => (await client.getTokenUsage({ signal: scope.signal })).data);
    },

    async getHistoricalTokenUsage(input: { query?: HistoricalTokenUsageQuery } = {}): Promise<HistoricalTokenUsageResponse['periods']> {
      const scope = currentScope();
      return mapFailures(async () => (await client.getHistoricalTokenUsage(input.query ?? {}, { signal: scope.signal })).periods);
    },
  };
}

// The remaining endpoints as activities. Page content goes to the store; what returns to the
// workflow is small: ids, counts, statuses, previews.
import { WebDataApiError } from 'webdata-client';
import type {
  ActivityQuery,
  BrowserCreateRequest,
  BrowserListQuery,
  HistoricalCreditUsageQuery,
  InteractRequest,
  MapRequest,
  ScrapeRequest,
  SearchRequest,
  SupportAskRequest,
} from 'webdata-contract';
import { DEFAULT_INTERACT_TIMEOUT_SEC } from 'webdata-contract';
import type { ActivityResponse, CreditUsageResponse, HistoricalCreditUsageResponse, ScrapeDocument } from 'webdata-contract';
import { refOf } from 'webdata-storage';
import { toDocumentInput } from './collect.js';
import { currentScope, whileHeartbeating } from './context.js';
import type { ActivityDeps } from './deps.js';
import { mapFailures } from './failures.js';
import type { CreditSnapshot, InteractPageResult, StopSessionResult, SupportAnswer } from './types.js';

const PREVIEW = 2048;

/**
 * The interact request's fields travel flat beside the ids (the shape workflow histories
 * record), so the activity passes them on without naming any.
 */
export type InteractActivityInput = InteractRequest & { runId?: string; scrapeId: string; url?: string };

export interface ScrapeActivityResult {
  scrapeId: string;
  url: string;
  statusCode: number | null;
  title?: string;
  creditsUsed: number;
  stored: boolean;
  ref: ReturnType<typeof refOf>;
}

export function createEndpointActivities(deps: ActivityDeps) {
  const { client, store } = deps;

  async function storeScrape(runId: string, doc: ScrapeDocument, kind: string): Promise<ScrapeActivityResult> {
    const meta = doc.metadata ?? {};
    const scrapeId = String(meta.scrapeId ?? '');
    const input = toDocumentInput(kind, doc);
    const stored = input ? (await store.appendDocuments(runId, scrapeId || 'scrape', [input])) > 0 : false;
    return {
      scrapeId,
      url: String(meta.sourceURL ?? meta.url ?? ''),
      statusCode: typeof meta.statusCode === 'number' ? meta.statusCode : null,
      ...(meta.title ? { title: String(meta.title) } : {}),
      creditsUsed: typeof meta.creditsUsed === 'number' ? meta.creditsUsed : 1,
      stored,
      ref: refOf(store, runId, { jobId: scrapeId }),
    };
  }

  return {
    /** POST /v2/scrape; the document is stored under `runId` (default: the workflow id). */
    async scrape(input: { runId?: string; body: ScrapeRequest }): Promise<ScrapeActivityResult> {
      const scope = currentScope();
      return mapFailures(async () => {
        const res = await whileHeartbeating(scope, (signal) => client.scrape(input.body, { signal }), deps.heartbeatEveryMs);
        return storeScrape(input.runId ?? scope.workflowId(), res.data, 'scrape');
      });
    },

    async getScrape(input: { runId?: string; id: string }): Promise<ScrapeActivityResult> {
      const scope = currentScope();
      return mapFailures(async () => {
        const res = await client.getScrape(input.id, { signal: scope.signal });
        return storeScrape(input.runId ?? scope.workflowId(), res.data, 'scrape');
      });
    },

    /** POST /v2/scrape/{jobId}/interact; the whole result is stored, a preview returned. */
    async interact(input: InteractActivityInput): Promise<InteractPageResult> {
      const scope = currentScope();
      const { runId: _runId, scrapeId: _scrapeId, url: _url, ...body } = input;
      const timeoutMs = ((body.timeout ?? DEFAULT_INTERACT_TIMEOUT_SEC) + 60) * 1000;
      return mapFailures(async () => {
        const res = await whileHeartbeating(scope, (signal) => client.interact(input.scrapeId, body, { signal, timeoutMs }), deps.heartbeatEveryMs);
        const url = input.url ?? input.scrapeId;
        await store.appendDocuments(input.runId ?? scope.workflowId(), `interact:${input.scrapeId}`, [{
          url,
          kind: 'interact',
          markdown: String(res.output || res.stdout || res.result || ''),
          metadata: { scrapeId: input.scrapeId, ...res },
        }]);
        // An empty stdout says nothing: prefer the agent's output, then stdout, then the value.
        const text = String(res.output || res.stdout || res.result || '');
        return {
          url,
          scrapeId: input.scrapeId,
          success: res.success === true && (res.exitCode ?? 0) === 0,
          exitCode: res.exitCode ?? null,
          killed: res.killed === true,
          preview: text.slice(0, PREVIEW),
          ...(res.error ? { error: String(res.error).slice(0, PREVIEW) } : {}),
        };
      });
    },

    /** DELETE /v2/scrape/{jobId}/interact; "no session" (404) and "already destroyed" (410) count as stopped. */
    async stopInteraction(input: { scrapeId: string }): Promise<StopSessionResult> {
      const scope = currentScope();
      return mapFailures(async () => {
        try {
          const res = await client.stopInteraction(input.scrapeId, { signal: scope.signal });
          return { stopped: res.success !== false, creditsBilled: res.creditsBilled ?? 0, sessionDurationMs: res.sessionDurationMs ?? 0 };
        } catch (err) {
          // not_available: this service has no interact route, so no session was ever opened.
          if (err instanceof WebDataApiError && (err.kind === 'not_found' || err.kind === 'gone' || err.kind === 'not_available')) {
            return { stopped: false, creditsBilled: 0, sessionDurationMs: 0 };
          }
          throw err;
        }
      });
    },

    /** POST /v2/map, returning only counts (see mapToStore for the stored variant). */
    async map(input: { body: MapRequest }): Promise<{ count: number; sample: string[] }> {
      const scope = currentScope();
      return mapFailures(async () => {
        const res = await whileHeartbeating(scope, (signal) => client.map(input.body, { signal }), deps.heartbeatEveryMs);
        return { count: res.links.length, sample: res.links.slice(0, 5).map((l) => l.url) };
      });
    },

    /** POST /v2/search; web results with content are stored, titles and URLs returned. */
    async search(input: { runId?: string; body: SearchRequest }): Promise<{ id?: string; creditsUsed: number; results: Array<{ source: string; url: string; title?: string }> }> {
      const scope = currentScope();
      return mapFailures(async () => {
        const res = await whileHeartbeating(scope, (signal) => client.search(input.body, { signal }), deps.heartbeatEveryMs);
        const results: Array<{ source: string; url: string; title?: string }> = [];
        const docs = [];
        for (const [source, items] of Object.entries(res.data ?? {})) {
          for (const item of (items ?? []) as Array<{ url?: string; title?: string; markdown?: string; metadata?: Record<string, unknown> }>) {
            if (!item.url) continue;
            results.push({ source, url: item.url, ...(item.title ? { title: item.title } : {}) });
            if (item.markdown !== undefined) docs.push({ ...item, url: item.url, kind: 'search', metadata: item.metadata ?? {} });
          }
        }
        if (docs.length > 0) await store.appendDocuments(input.runId ?? scope.workflowId(), `search:${res.id ?? 'search'}`, docs);
        return { id: res.id, creditsUsed: res.creditsUsed ?? 0, results };
      });
    },

    async createBrowser(input: { body?: BrowserCreateRequest }) {
      const scope = currentScope();
      return mapFailures(async () => {
        const res = await client.createBrowser(input.body ?? {}, { signal: scope.signal });
        return { id: res.id, cdpUrl: res.cdpUrl, liveViewUrl: res.liveViewUrl, interactiveLiveViewUrl: res.interactiveLiveViewUrl, expiresAt: res.expiresAt };
      });
    },

    async listBrowsers(input: { query?: BrowserListQuery } = {}) {
      const scope = currentScope();
      return mapFailures(async () => (await client.listBrowsers(input.query ?? {}, { signal: scope.signal })).sessions);
    },

    async deleteBrowser(input: { id: string }) {
      const scope = currentScope();
      return mapFailures(async () => {
        const res = await client.deleteBrowser(input.id, { signal: scope.signal });
        return { success: res.success, sessionDurationMs: res.sessionDurationMs ?? 0, creditsBilled: res.creditsBilled ?? 0 };
      });
    },

    async askSupport(input: { body: SupportAskRequest }): Promise<SupportAnswer> {
      const scope = currentScope();
      return mapFailures(async () => {
        const res = await whileHeartbeating(scope, (signal) => client.askSupport(input.body, { signal, timeoutMs: 75_000 }), deps.heartbeatEveryMs);
        return {
          requestId: res.requestId,
          answer: res.answer,
          confidence: res.confidence,
          fixParameters: res.fixParameters ?? null,
          validation: res.validation ?? null,
          durationMs: res.durationMs,
        };
      });
    },

    async listActivity(input: { query?: ActivityQuery } = {}): Promise<ActivityResponse> {
      const scope = currentScope();
      return mapFailures(() => client.listActivity(input.query ?? {}, { signal: scope.signal }));
    },

    async getCreditUsage(): Promise<CreditUsageResponse['data']> {
      const scope = currentScope();
      return mapFailures(async () => (await client.getCreditUsage({ signal: scope.signal })).data);
    },

    async getHistoricalCreditUsage(input: { query?: HistoricalCreditUsageQuery } = {}): Promise<HistoricalCreditUsageResponse['periods']> {
      const scope = currentScope();
      return mapFailures(async () => (await client.getHistoricalCreditUsage(input.query ?? {}, { signal: scope.signal })).periods);
    },

    /** Remaining credits and this calendar month's usage, for the budget's monthly cap. */
    async creditSnapshot(): Promise<CreditSnapshot> {
      const scope = currentScope();
      return mapFailures(async () => {
        const [usage, history] = await Promise.all([
          client.getCreditUsage({ signal: scope.signal }),
          // The history is auxiliary: a service without the route (the open-source server)
          // still tells the remaining credits; this month's usage is then unknown.
          client.getHistoricalCreditUsage({}, { signal: scope.signal }).catch((err: unknown) => {
            if (err instanceof WebDataApiError && err.kind === 'not_available') return undefined;
            throw err;
          }),
        ]);
        if (!history) return { remainingCredits: usage.data.remainingCredits, usedThisMonth: 0, notAvailable: ['credit usage history'] };
        const now = Date.now();
        const current = history.periods.find((p) => Date.parse(p.startDate) <= now && now < Date.parse(p.endDate));
        return { remainingCredits: usage.data.remainingCredits, usedThisMonth: current?.totalCredits ?? 0 };
      });
    },
  };
}

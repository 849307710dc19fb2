// Every input of every WebDataClient method, as fast-check arbitraries of invalid values, with
// the call that sends it through the client and the raw HTTP request that sends it past the
// client (straight to a server). Shared by client-validation and service-validation tests.
import fc from 'fast-check';
import type { z } from 'zod';
import type { WebDataClient } from '../../packages/client/src/client.js';
import {
  activityQuerySchema,
  agentRequestSchema,
  batchScrapeRequestSchema,
  browserCreateRequestSchema,
  browserListQuerySchema,
  crawlParamsPreviewRequestSchema,
  crawlRequestSchema,
  extractRequestSchema,
  historicalCreditUsageQuerySchema,
  historicalTokenUsageQuerySchema,
  interactRequestSchema,
  jobStatusQuerySchema,
  mapRequestSchema,
  scrapeRequestSchema,
  searchRequestSchema,
  supportAskRequestSchema,
} from '../../packages/contract/src/schemas/index.js';
import {
  createMonitorRequestSchema,
  listMonitorChecksQuerySchema,
  listMonitorsQuerySchema,
  monitorCheckQuerySchema,
  updateMonitorRequestSchema,
} from '../../packages/contract/src/schemas/monitor.js';
import { invalidUuid, objectFieldMutations, withKey, type Invalid } from './invalid-requests.js';

export const VALID_ID = '0b6f8a1e-4c1d-4a57-9d51-5b1f0a6c2e11';
const SITE = 'http://127.0.0.1:9/';

export interface RawRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, unknown>;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface InputCase {
  /** `startCrawl body`, `getCrawlStatus id`... */
  name: string;
  /** Prefix of the client's error message (`crawl body`, `crawl id`). */
  what: string;
  arbitrary: fc.Arbitrary<Invalid>;
  call(client: WebDataClient, value: unknown): Promise<unknown>;
  http(value: unknown): RawRequest;
  /** The schema the service checks this input with (to skip values that serialize into valid ones). */
  schema?: z.ZodType;
  location: 'body' | 'query' | 'path' | 'header';
}

type Any = never;

/** A whole-body mutation: wrong top-level type, a field broken, an unknown key. */
function bodyArbitrary(schema: z.ZodType, base: Record<string, unknown>, extra: Array<fc.Arbitrary<Invalid>> = []): fc.Arbitrary<Invalid> {
  const notObject = fc.oneof(fc.constant(null), fc.string({ maxLength: 8 }), fc.integer(), fc.array(fc.integer(), { maxLength: 2 }), fc.boolean())
    .map((value): Invalid => ({ value, path: '', rule: 'body is not an object' }));
  return fc.oneof({ weight: 1, arbitrary: notObject }, { weight: 8, arbitrary: objectFieldMutations(schema, base) }, ...extra.map((a) => ({ weight: 2, arbitrary: a })));
}

const queryArbitrary = (schema: z.ZodType) => objectFieldMutations(schema, {});

function idArbitrary(): fc.Arbitrary<Invalid> {
  return fc.oneof(
    { weight: 6, arbitrary: invalidUuid() },
    { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.constant(null), fc.constant(undefined), fc.boolean(), fc.array(fc.string(), { maxLength: 1 })) },
  ).map((value): Invalid => ({ value, path: '', rule: 'not a UUID' }));
}

const pathId = (value: unknown) => encodeURIComponent(String(value));

// Rules that span fields (exactly one of, mutually exclusive, totals), from the schemas' refinements.
const exclusiveInteract = fc.oneof(
  fc.tuple(fc.string({ minLength: 1, maxLength: 20 }), fc.string({ minLength: 1, maxLength: 20 })).map(([code, prompt]): Invalid => ({ value: { code, prompt }, path: '', names: ['code', 'prompt'], rule: 'both code and prompt' })),
  fc.record({ language: fc.constantFrom('node', 'python', 'bash'), timeout: fc.integer({ min: 1, max: 300 }) }, { requiredKeys: [] })
    .map((value): Invalid => ({ value, path: '', names: ['code', 'prompt'], rule: 'neither code nor prompt' })),
);
const exclusiveDomains = fc.tuple(fc.constantFrom('a.example', 'b.example'), fc.constantFrom('c.example', 'd.example'))
  .map(([inc, exc]): Invalid => ({ value: { query: 'q', includeDomains: [inc], excludeDomains: [exc] }, path: 'excludeDomains', rule: 'include and exclude domains' }));
const tooMuchWaiting = (base: Record<string, unknown>) => fc.integer({ min: 1, max: 50_000 }).chain((extra) => fc.constantFrom(
  { value: { ...base, waitFor: 30_000, actions: [{ type: 'wait', milliseconds: 30_000 + extra }] }, path: 'actions', rule: 'over 60 s of waiting' } as Invalid,
  { value: { ...base, actions: Array.from({ length: 2 }, () => ({ type: 'wait', milliseconds: 30_000 + extra })) }, path: 'actions', rule: 'over 60 s of waiting' } as Invalid,
));
const waitNeedsOne = (base: Record<string, unknown>) => fc.constantFrom(
  { value: { ...base, actions: [{ type: 'wait' }] }, path: 'actions.0', rule: 'wait with neither' } as Invalid,
  { value: { ...base, actions: [{ type: 'wait', milliseconds: 5, selector: '#a' }] }, path: 'actions.0', rule: 'wait with both' } as Invalid,
);
const badBatchUrls = fc.oneof(fc.constantFrom('example.com', 'ftp://x.y/', 'javascript:alert(1)'), fc.string({ maxLength: 10 }))
  .filter((u) => !/^https?:\/\//.test(u))
  .map((u): Invalid => ({ value: { urls: [SITE, u] }, path: 'urls.1', rule: 'a URL entry is not http(s)' }));

/** A valid monitor: a daily check of one page. */
const MONITOR = { name: 'm', schedule: { text: 'every day' }, targets: [{ type: 'scrape', urls: [SITE] }] };

export function inputCases(): InputCase[] {
  const body = (name: string, what: string, schema: z.ZodType, base: Record<string, unknown>, method: RawRequest['method'], path: string,
    call: (c: WebDataClient, v: Any) => Promise<unknown>, extra: Array<fc.Arbitrary<Invalid>> = []): InputCase => ({
    name, what, schema, location: 'body', arbitrary: bodyArbitrary(schema, base, extra), call,
    http: (value) => ({ method, path, body: value }),
  });
  const query = (name: string, what: string, schema: z.ZodType, path: string, call: (c: WebDataClient, v: Any) => Promise<unknown>): InputCase => ({
    name, what, schema, location: 'query', arbitrary: queryArbitrary(schema), call,
    http: (value) => ({ method: 'GET', path, query: value as Record<string, unknown> }),
  });
  const id = (name: string, what: string, method: RawRequest['method'], path: (id: string) => string, call: (c: WebDataClient, v: Any) => Promise<unknown>, httpBody?: unknown): InputCase => ({
    // GET /v2/crawl/active is an endpoint of its own, not a crawl id; GET /v2/monitor/ and
    // /v2/monitor/. (the URL resolves the dot) are the monitor list.
    name, what, location: 'path', call,
    arbitrary: idArbitrary().filter((i) => !(name === 'getCrawlStatus id' && pathId(i.value) === 'active') && !(name === 'getMonitor id' && ['', '.'].includes(pathId(i.value)))),
    http: (value) => ({ method, path: path(pathId(value)), ...(httpBody !== undefined ? { body: httpBody } : {}) }),
  });
  const key = (name: string, what: string, path: string, validBody: Record<string, unknown>, call: (c: WebDataClient, v: Any) => Promise<unknown>): InputCase => ({
    name, what, location: 'header', call,
    // A header value can only carry visible ASCII, and HTTP strips surrounding spaces.
    arbitrary: invalidUuid().filter((k) => k.trim() === k && k !== '' && /^[\x20-\x7e]*$/.test(k)).map((value): Invalid => ({ value, path: '', rule: 'idempotency key not a UUID' })),
    http: (value) => ({ method: 'POST', path, body: validBody, headers: { 'x-idempotency-key': String(value) } }),
  });

  return [
    body('scrape body', 'scrape body', scrapeRequestSchema, { url: SITE }, 'POST', '/v2/scrape', (c, v) => c.scrape(v),
      [tooMuchWaiting({ url: SITE }), waitNeedsOne({ url: SITE })]),
    id('getScrape id', 'scrape id', 'GET', (i) => `/v2/scrape/${i}`, (c, v) => c.getScrape(v)),
    body('interact body', 'interact body', interactRequestSchema, { code: '1' }, 'POST', `/v2/scrape/${VALID_ID}/interact`, (c, v) => c.interact(VALID_ID, v), [exclusiveInteract]),
    id('interact jobId', 'interact jobId', 'POST', (i) => `/v2/scrape/${i}/interact`, (c, v) => c.interact(v, { code: '1' }), { code: '1' }),
    id('stopInteraction jobId', 'interact stop jobId', 'DELETE', (i) => `/v2/scrape/${i}/interact`, (c, v) => c.stopInteraction(v)),
    body('startCrawl body', 'crawl body', crawlRequestSchema, { url: SITE }, 'POST', '/v2/crawl', (c, v) => c.startCrawl(v),
      [tooMuchWaiting({}).map((i) => ({ ...i, value: { url: SITE, scrapeOptions: i.value }, path: `scrapeOptions.${i.path}` }))]),
    key('startCrawl idempotencyKey', 'crawl idempotencyKey', '/v2/crawl', { url: SITE }, (c, v) => c.startCrawl({ url: SITE }, { idempotencyKey: v })),
    id('getCrawlStatus id', 'crawl id', 'GET', (i) => `/v2/crawl/${i}`, (c, v) => c.getCrawlStatus(v)),
    query('getCrawlStatus page', 'crawl status query', jobStatusQuerySchema, `/v2/crawl/${VALID_ID}`, (c, v) => c.getCrawlStatus(VALID_ID, v)),
    id('cancelCrawl id', 'crawl id', 'DELETE', (i) => `/v2/crawl/${i}`, (c, v) => c.cancelCrawl(v)),
    id('getCrawlErrors id', 'crawl id', 'GET', (i) => `/v2/crawl/${i}/errors`, (c, v) => c.getCrawlErrors(v)),
    body('previewCrawlParams body', 'crawl params-preview body', crawlParamsPreviewRequestSchema, { url: SITE, prompt: 'docs only' }, 'POST', '/v2/crawl/params-preview', (c, v) => c.previewCrawlParams(v)),
    body('startBatchScrape body', 'batch scrape body', batchScrapeRequestSchema, { urls: [SITE] }, 'POST', '/v2/batch/scrape', (c, v) => c.startBatchScrape(v),
      [badBatchUrls, tooMuchWaiting({ urls: [SITE] }), waitNeedsOne({ urls: [SITE] })]),
    key('startBatchScrape idempotencyKey', 'batch scrape idempotencyKey', '/v2/batch/scrape', { urls: [SITE] }, (c, v) => c.startBatchScrape({ urls: [SITE] }, { idempotencyKey: v })),
    // The job to extend travels in the body (appendToId); the body's other fields are the start's (covered above).
    {
      name: 'appendToBatchScrape id', what: 'batch scrape id', location: 'body', schema: batchScrapeRequestSchema,
      arbitrary: idArbitrary(), call: (c, v) => c.appendToBatchScrape(v as Any, { urls: [SITE] }),
      http: (value) => ({ method: 'POST', path: '/v2/batch/scrape', body: { urls: [SITE], appendToId: value } }),
    },
    id('getBatchScrapeStatus id', 'batch scrape id', 'GET', (i) => `/v2/batch/scrape/${i}`, (c, v) => c.getBatchScrapeStatus(v)),
    query('getBatchScrapeStatus page', 'batch scrape status query', jobStatusQuerySchema, `/v2/batch/scrape/${VALID_ID}`, (c, v) => c.getBatchScrapeStatus(VALID_ID, v)),
    id('cancelBatchScrape id', 'batch scrape id', 'DELETE', (i) => `/v2/batch/scrape/${i}`, (c, v) => c.cancelBatchScrape(v)),
    id('getBatchScrapeErrors id', 'batch scrape id', 'GET', (i) => `/v2/batch/scrape/${i}/errors`, (c, v) => c.getBatchScrapeErrors(v)),
    body('map body', 'map body', mapRequestSchema, { url: SITE }, 'POST', '/v2/map', (c, v) => c.map(v)),
    body('search body', 'search body', searchRequestSchema, { query: 'q' }, 'POST', '/v2/search', (c, v) => c.search(v), [exclusiveDomains]),
    body('createBrowser body', 'browser body', browserCreateRequestSchema, {}, 'POST', '/v2/browser', (c, v) => c.createBrowser(v)),
    query('listBrowsers query', 'browser list query', browserListQuerySchema, '/v2/browser', (c, v) => c.listBrowsers(v)),
    {
      name: 'deleteBrowser id', what: 'browser id', location: 'path', call: (c, v) => c.deleteBrowser(v as Any),
      arbitrary: fc.oneof(fc.constant(''), fc.integer(), fc.constant(null), fc.boolean(), fc.array(fc.string(), { maxLength: 1 }))
        .map((value): Invalid => ({ value, path: '', rule: 'empty or not a string' })),
      // Past the client, '' is DELETE /v2/browser with no body (the body form needs an id).
      http: (value) => ({ method: 'DELETE', path: value === '' ? '/v2/browser' : `/v2/browser/${pathId(value)}` }),
    },
    body('askSupport body', 'support ask body', supportAskRequestSchema, { question: 'why?' }, 'POST', '/v2/support/ask', (c, v) => c.askSupport(v)),
    body('startAgent body', 'agent body', agentRequestSchema, { prompt: 'find it' }, 'POST', '/v2/agent', (c, v) => c.startAgent(v)),
    id('getAgent id', 'agent id', 'GET', (i) => `/v2/agent/${i}`, (c, v) => c.getAgent(v)),
    id('cancelAgent id', 'agent id', 'DELETE', (i) => `/v2/agent/${i}`, (c, v) => c.cancelAgent(v)),
    body('startExtract body', 'extract body', extractRequestSchema, { urls: [SITE], prompt: 'the title' }, 'POST', '/v2/extract', (c, v) => c.startExtract(v)),
    id('getExtract id', 'extract id', 'GET', (i) => `/v2/extract/${i}`, (c, v) => c.getExtract(v)),
    query('listActivity query', 'activity query', activityQuerySchema, '/v2/team/activity', (c, v) => c.listActivity(v)),
    query('getHistoricalCreditUsage query', 'historical credit usage query', historicalCreditUsageQuerySchema, '/v2/team/credit-usage/historical', (c, v) => c.getHistoricalCreditUsage(v)),
    query('getHistoricalTokenUsage query', 'historical token usage query', historicalTokenUsageQuerySchema, '/v2/team/token-usage/historical', (c, v) => c.getHistoricalTokenUsage(v)),
    body('createMonitor body', 'monitor body', createMonitorRequestSchema, MONITOR, 'POST', '/v2/monitor', (c, v) => c.createMonitor(v)),
    query('listMonitors query', 'monitor list query', listMonitorsQuerySchema, '/v2/monitor', (c, v) => c.listMonitors(v)),
    id('getMonitor id', 'monitor id', 'GET', (i) => `/v2/monitor/${i}`, (c, v) => c.getMonitor(v)),
    body('updateMonitor body', 'monitor update body', updateMonitorRequestSchema, { name: 'm' }, 'PATCH', `/v2/monitor/${VALID_ID}`, (c, v) => c.updateMonitor(VALID_ID, v)),
    id('deleteMonitor id', 'monitor id', 'DELETE', (i) => `/v2/monitor/${i}`, (c, v) => c.deleteMonitor(v)),
    id('runMonitor id', 'monitor id', 'POST', (i) => `/v2/monitor/${i}/run`, (c, v) => c.runMonitor(v)),
    query('listMonitorChecks query', 'monitor checks query', listMonitorChecksQuerySchema, `/v2/monitor/${VALID_ID}/checks`, (c, v) => c.listMonitorChecks(VALID_ID, v)),
    // The paging generator validates through listMonitorChecks on its first step.
    id('allMonitorChecks id', 'monitor id', 'GET', (i) => `/v2/monitor/${i}/checks`, (c, v) => c.allMonitorChecks(v).next()),
    query('getMonitorCheck query', 'monitor check query', monitorCheckQuerySchema, `/v2/monitor/${VALID_ID}/checks/${VALID_ID}`, (c, v) => c.getMonitorCheck(VALID_ID, VALID_ID, v)),
  ];
}

/** Methods with no input to validate (nothing a caller can get wrong). */
export const NO_INPUT_METHODS = ['listActiveCrawls', 'getCreditUsage', 'getQueueStatus', 'getTokenUsage', 'close'];

/**
 * Methods whose input is not a JSON body, query or path: `parse` uploads a file (multipart);
 * its refusals before sending are tested in test/api/agent-extract-parse.test.ts.
 */
export const NON_JSON_METHODS = ['parse'];

/** Query values as a server receives them (text); objects as JSON, arrays as repeated names. */
export function toSearchParams(query: Record<string, unknown> | undefined): URLSearchParams {
  const params = new URLSearchParams();
  if (!query || typeof query !== 'object') return params;
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined) continue;
    if (Array.isArray(v)) for (const item of v) params.append(k, String(item));
    else params.append(k, v !== null && typeof v === 'object' ? JSON.stringify(v) : String(v));
  }
  return params;
}

export { withKey };

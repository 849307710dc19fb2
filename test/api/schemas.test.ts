import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { z } from 'zod';
import {
  activityQuerySchema,
  batchScrapeRequestSchema,
  browserCreateRequestSchema,
  crawlParamsPreviewRequestSchema,
  crawlRequestSchema,
  formatIssues,
  historicalCreditUsageQuerySchema,
  interactRequestSchema,
  jobStatusQuerySchema,
  mapRequestSchema,
  scrapeRequestSchema,
  searchRequestSchema,
  supportAskRequestSchema,
} from '../../packages/contract/src/schemas/index.js';

function issues(schema: z.ZodType, value: unknown) {
  const r = schema.safeParse(value);
  assert.equal(r.success, false, `expected ${JSON.stringify(value)} to be rejected`);
  return formatIssues(r.error!);
}

function hasIssue(schema: z.ZodType, value: unknown, path: string, message: RegExp) {
  const list = issues(schema, value);
  assert.ok(
    list.some((i) => i.path === path && message.test(i.message)),
    `expected issue at "${path}" matching ${message}, got ${JSON.stringify(list)}`,
  );
}

const url = 'https://example.com/';

test('valid bodies pass and keep absent fields absent (no defaults)', () => {
  const crawl = crawlRequestSchema.parse({ url, origin: 'sdk', integration: 'x' });
  assert.deepEqual(crawl, { url, origin: 'sdk', integration: 'x' });
  scrapeRequestSchema.parse({
    url,
    formats: ['markdown', { type: 'screenshot', fullPage: true, quality: 80, viewport: { width: 800, height: 600 } }, { type: 'json', prompt: 'p' }, { type: 'summary' }, { type: 'changeTracking' }],
    actions: [{ type: 'wait', milliseconds: 500 }, { type: 'wait', selector: '#a' }, { type: 'click', selector: 'a', all: true }, { type: 'write', text: 'x' }, { type: 'press', key: 'Enter' }, { type: 'scroll', direction: 'down' }, { type: 'screenshot' }, { type: 'scrape' }, { type: 'executeJavascript', script: '1' }, { type: 'pdf' }],
    waitFor: 1000,
  });
  interactRequestSchema.parse({ code: 'x', language: 'python', timeout: 300 });
  interactRequestSchema.parse({ prompt: 'x' });
  batchScrapeRequestSchema.parse({ urls: ['not a url'], ignoreInvalidURLs: true, formats: ['html'] });
  searchRequestSchema.parse({ query: 'q', categories: ['github', { type: 'pdf' }], tbs: 'qdr:d,sbd:1', includeDomains: ['a.example.com'] });
  searchRequestSchema.parse({ query: 'q', tbs: 'cdr:1,cd_min:01/02/2024,cd_max:12/31/2024' });
  mapRequestSchema.parse({ url, limit: 100000, sitemap: 'only' });
  crawlRequestSchema.parse({ url, webhook: { url, metadata: { a: 'b' }, events: ['page', 'completed'] }, includePaths: ['^/blog/.*'] });
  crawlRequestSchema.parse({ url, webhook: url });
  assert.deepEqual(jobStatusQuerySchema.parse({ skip: '10', limit: '5' }), { skip: 10, limit: 5 });
  assert.deepEqual(historicalCreditUsageQuerySchema.parse({ byApiKey: 'true' }), { byApiKey: true });
});

test('rule messages and dotted paths', () => {
  hasIssue(mapRequestSchema, { url, limit: 100001 }, 'limit', /^must be at most 100000$/);
  hasIssue(crawlRequestSchema, { url, limit: 0 }, 'limit', /^must be at least 1$/);
  hasIssue(crawlRequestSchema, { url, limit: 1.5 }, 'limit', /integer/);
  hasIssue(crawlRequestSchema, {}, 'url', /is required/);
  hasIssue(crawlRequestSchema, { url: 'ftp://x' }, 'url', /URL/);
  hasIssue(crawlRequestSchema, { url, bogus: 1 }, 'bogus', /not a known field/);
  hasIssue(crawlRequestSchema, { url, includePaths: ['(['] }, 'includePaths.0', /regular expression/);
  hasIssue(crawlRequestSchema, { url, sitemap: 'always' }, 'sitemap', /skip, include, only/);
  hasIssue(crawlRequestSchema, { url, scrapeOptions: { formats: ['md'] } }, 'scrapeOptions.formats.0', /markdown/);
  hasIssue(crawlRequestSchema, { url, scrapeOptions: { formats: [{ type: 'jsn' }] } }, 'scrapeOptions.formats.0.type', /one of/);
  hasIssue(crawlRequestSchema, { url, scrapeOptions: { formats: [{ type: 'screenshot', quality: 101 }] } }, 'scrapeOptions.formats.0.quality', /at most 100/);
  hasIssue(crawlRequestSchema, { url, webhook: { url, metadata: { a: 1 } } }, 'webhook.metadata.a', /string/);
  hasIssue(crawlRequestSchema, { url, webhook: { url, events: ['done'] } }, 'webhook.events.0', /started, page, completed, failed/);
  hasIssue(interactRequestSchema, {}, '', /exactly one of code or prompt is required/);
  hasIssue(interactRequestSchema, { code: 'a', prompt: 'b' }, '', /exactly one of code or prompt/);
  hasIssue(interactRequestSchema, { code: 'a', timeout: 301 }, 'timeout', /at most 300/);
  hasIssue(interactRequestSchema, { prompt: 'x'.repeat(10001) }, 'prompt', /at most 10000 characters/);
  hasIssue(searchRequestSchema, { query: 'q', includeDomains: ['a.com'], excludeDomains: ['b.com'] }, 'excludeDomains', /mutually exclusive/);
  hasIssue(searchRequestSchema, { query: 'q', includeDomains: ['https://a.com/x'] }, 'includeDomains.0', /hostname/);
  hasIssue(searchRequestSchema, { query: 'x'.repeat(501) }, 'query', /at most 500/);
  hasIssue(searchRequestSchema, { query: 'q', categories: ['news'] }, 'categories.0', /github, research, pdf/);
  hasIssue(scrapeRequestSchema, { url, actions: Array.from({ length: 51 }, () => ({ type: 'scrape' })) }, 'actions', /at most 50/);
  hasIssue(scrapeRequestSchema, { url, waitFor: 30000, actions: [{ type: 'wait', milliseconds: 30001 }] }, 'actions', /total waiting/);
  hasIssue(scrapeRequestSchema, { url, actions: [{ type: 'wait' }] }, 'actions.0', /exactly one of milliseconds or selector/);
  hasIssue(batchScrapeRequestSchema, { urls: [] }, 'urls', /at least 1/);
  hasIssue(batchScrapeRequestSchema, { urls: [url, 'nope'] }, 'urls.1', /URL/);
  hasIssue(browserCreateRequestSchema, { ttl: 29 }, 'ttl', /at least 30/);
  hasIssue(browserCreateRequestSchema, { profile: { name: '' } }, 'profile.name', /empty/);
  hasIssue(supportAskRequestSchema, { question: 'x'.repeat(8001) }, 'question', /at most 8000/);
  hasIssue(crawlParamsPreviewRequestSchema, { url }, 'prompt', /is required/);
  hasIssue(activityQuerySchema, { limit: '101' }, 'limit', /at most 100/);
  hasIssue(activityQuerySchema, { endpoint: 'nope' }, 'endpoint', /one of/);
  hasIssue(jobStatusQuerySchema, { skip: -1 }, 'skip', /at least 0/);
});

test('formatIssues never throws and always names a rule, for arbitrary input', async () => {
  const fc = await import('fast-check');
  const schemas: z.ZodType[] = [
    crawlRequestSchema,
    scrapeRequestSchema,
    batchScrapeRequestSchema,
    searchRequestSchema,
    mapRequestSchema,
    interactRequestSchema,
    browserCreateRequestSchema,
    supportAskRequestSchema,
    activityQuerySchema,
    jobStatusQuerySchema,
  ];
  fc.assert(
    fc.property(fc.constantFrom(...schemas), fc.anything(), (schema, value) => {
      const r = schema.safeParse(value);
      if (r.success) return;
      const list = formatIssues(r.error);
      assert.ok(list.length > 0);
      for (const i of list) {
        assert.equal(typeof i.path, 'string');
        assert.ok(i.message.length > 0 && !/^Invalid input$/.test(i.message), i.message);
      }
    }),
    { numRuns: 500 },
  );
});

test('query values of the wrong type name the rule', () => {
  hasIssue(jobStatusQuerySchema, { limit: { a: 1 } }, 'limit', /^must be an integer$/);
  hasIssue(jobStatusQuerySchema, { skip: 'abc' }, 'skip', /^must be an integer$/);
  hasIssue(historicalCreditUsageQuerySchema, { byApiKey: 'yes' }, 'byApiKey', /^must be a boolean/);
  hasIssue(historicalCreditUsageQuerySchema, { byApiKey: 3 }, 'byApiKey', /boolean/);
});

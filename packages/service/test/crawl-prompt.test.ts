// Crawl options from a prompt: the documented rules (a table of prompts → options), the
// model path against a local OpenAI-compatible endpoint, the merge rule and the preview handler.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { crawlRequestSchema } from '../../contract/src/schemas/index.js';
import type { RouteRequest } from '../src/core/routes.js';
import type { TeamConfig } from '../src/core/teams.js';
import { HttpError } from '../src/core/http-error.js';
import {
  createParamsPreviewHandler,
  mergePromptOptions,
  pathPattern,
  proposeCrawlOptions,
  readPromptRules,
  type CrawlPromptOptions,
  type LlmConfig,
} from '../src/crawl-prompt/index.js';

const SITE = 'https://example.com/';

const TABLE: Array<[prompt: string, url: string, expected: CrawlPromptOptions]> = [
  ['Crawl the blog section', SITE, { includePaths: ['^/blog(/|$)'] }],
  ['Only crawl /docs and /blog pages', SITE, { includePaths: ['^/docs(/|$)', '^/blog(/|$)'] }],
  ['Crawl the docs but exclude /docs/api', SITE, { includePaths: ['^/docs(/|$)'], excludePaths: ['^/docs/api(/|$)'] }],
  ['Everything except the shop and the private area', SITE, { excludePaths: ['^/shop(/|$)', '^/private(/|$)'] }],
  ['Crawl /docs/* except /docs/legacy/ and /docs/drafts', SITE, { includePaths: ['^/docs(/|$)'], excludePaths: ['^/docs/legacy(/|$)', '^/docs/drafts(/|$)'] }],
  ['Exclude /private, crawl /blog', SITE, { excludePaths: ['^/private(/|$)'], includePaths: ['^/blog(/|$)'] }],
  ['Get up to 50 pages', SITE, { limit: 50 }],
  ['the first 20 blog posts', SITE, { limit: 20, includePaths: ['^/blog(/|$)'] }],
  ['limit the crawl to 1,500', SITE, { limit: 1500 }],
  ['a hundred pages at most', SITE, { limit: 100 }],
  // "X pages" names a section /X: the site is not consulted.
  ['twenty product pages', SITE, { limit: 20, includePaths: ['^/product(/|$)'] }],
  ['the blog, 25 pages', SITE, { limit: 25, includePaths: ['^/blog(/|$)'] }],
  ['Go 2 levels deep', SITE, { maxDiscoveryDepth: 2 }],
  ['max depth of 3 and no more than 40 pages', SITE, { maxDiscoveryDepth: 3, limit: 40 }],
  ['no deeper than 1 level', SITE, { maxDiscoveryDepth: 1 }],
  ['Include subdomains', SITE, { allowSubdomains: true }],
  ['Crawl the blog but no subdomains', SITE, { includePaths: ['^/blog(/|$)'], allowSubdomains: false }],
  ['Follow external links too', SITE, { allowExternalLinks: true }],
  ["Don't follow external links", SITE, { allowExternalLinks: false }],
  ['Use the sitemap only', SITE, { sitemap: 'only' }],
  ['sitemap only, 10 pages', SITE, { sitemap: 'only', limit: 10 }],
  ['Skip the sitemap and crawl the docs', SITE, { sitemap: 'skip', includePaths: ['^/docs(/|$)'] }],
  ['Crawl the entire domain', 'https://example.com/blog/post-1', { crawlEntireDomain: true }],
  ['the whole site but not the shop', SITE, { crawlEntireDomain: true, excludePaths: ['^/shop(/|$)'] }],
  ['Ignore query parameters', SITE, { ignoreQueryParameters: true }],
  ['crawl the shop, ignoring query strings', SITE, { ignoreQueryParameters: true, includePaths: ['^/shop(/|$)'] }],
  ['Ignore robots.txt', SITE, { ignoreRobotsTxt: true }],
  ['wait 500 ms between pages', SITE, { delay: 0.5 }],
  ['2 seconds between requests, only /blog', SITE, { delay: 2, includePaths: ['^/blog(/|$)'] }],
  ['I want 50 pages from the docs', SITE, { limit: 50, includePaths: ['^/docs(/|$)'] }],
  ['exclude pages from the shop', SITE, { excludePaths: ['^/shop(/|$)'] }],
  ['blog only', SITE, { includePaths: ['^/blog(/|$)'] }],
  ['Crawl https://example.com/guides/ and skip https://other.org/x', SITE, { includePaths: ['^/guides(/|$)'] }],
  // An included section beside the start path needs crawlEntireDomain to be reachable.
  ['Crawl the docs', 'https://example.com/blog', { includePaths: ['^/docs(/|$)'], crawlEntireDomain: true }],
  ['Crawl the docs', 'https://example.com/docs/', { includePaths: ['^/docs(/|$)'] }],
  ['Please crawl this site in English', SITE, {}],
  ['Summarize the pricing', SITE, {}],
];

describe('crawl prompt rules', () => {
  for (const [prompt, url, expected] of TABLE) {
    test(`"${prompt}" at ${url}`, () => {
      const { options, notes } = readPromptRules(prompt, url);
      assert.deepEqual(options, expected);
      assert.ok(notes.length > 0);
      // Every proposal is a valid crawl request on its own.
      const { maxDepth: _m, deduplicateSimilarURLs: _d, ...fields } = options;
      assert.equal(crawlRequestSchema.safeParse({ url, ...fields }).success, true);
    });
  }

  test('path patterns', () => {
    assert.equal(pathPattern('/blog'), '^/blog(/|$)');
    assert.equal(pathPattern('/blog/'), '^/blog(/|$)');
    assert.equal(pathPattern('/blog/**'), '^/blog(/|$)');
    assert.equal(pathPattern('/shop/*/reviews'), '^/shop/[^/]*/reviews(/|$)');
    assert.equal(pathPattern('/v1.2/api'), '^/v1\\.2/api(/|$)');
    assert.equal(pathPattern('/'), undefined);
    for (const [path, yes, no] of [['/blog', '/blog/post-1', '/blogger'], ['/docs/api', '/docs/api', '/docs/apis']] as const) {
      const re = new RegExp(pathPattern(path) as string);
      assert.ok(re.test(yes), `${path} matches ${yes}`);
      assert.ok(!re.test(no), `${path} does not match ${no}`);
    }
  });

  test('notes say what was read, and a start URL outside the includes is pointed out', () => {
    const { notes } = readPromptRules('only the blog', 'https://example.com/');
    assert.ok(notes.some((n) => n.includes('includePaths ^/blog(/|$) from "blog"')));
    assert.ok(notes.some((n) => n.includes('start URL path / matches no includePaths')));
    assert.deepEqual(readPromptRules('hello', SITE).notes, ['no crawl options recognized in the prompt; the defaults apply']);
  });
});

test('mergePromptOptions: explicit fields win, including [] and false; undefined does not', () => {
  const proposed = { includePaths: ['^/blog(/|$)'], limit: 50, allowSubdomains: true, sitemap: 'only' as const };
  const explicit = { url: SITE, limit: 10, includePaths: [] as string[], allowSubdomains: false, sitemap: undefined };
  assert.deepEqual(mergePromptOptions(explicit, proposed), { url: SITE, includePaths: [], limit: 10, allowSubdomains: false, sitemap: 'only' });
});

/** A local OpenAI-compatible endpoint that answers with the next canned reply. */
async function fakeModel(replies: Array<{ status?: number; content: string }>): Promise<{ server: Server; llm: LlmConfig; requests: unknown[] }> {
  const requests: unknown[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ path: req.url, auth: req.headers.authorization, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown });
      const reply = replies.shift() ?? { status: 500, content: 'no more replies' };
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: reply.content } }] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { server, requests, llm: { baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: 'sk-test', model: 'test-model' } };
}

describe('crawl prompt with a model', () => {
  let model: Awaited<ReturnType<typeof fakeModel>>;
  before(async () => {
    model = await fakeModel([
      { content: '```json\n{"includePaths":["^/blog"],"limit":25,"sitemap":"sometimes","maxDiscoveryDepth":-1,"excludePaths":["("],"color":"red","allowSubdomains":true}\n```' },
      { status: 503, content: 'overloaded' },
      { content: '{"limit": 7}' },
    ]);
  });
  after(() => new Promise<void>((resolve) => model.server.close(() => resolve())));

  test('valid fields are kept, invalid and unknown ones dropped with notes', async () => {
    const proposal = await proposeCrawlOptions({ url: SITE, prompt: 'the blog, 25 pages', llm: model.llm });
    assert.equal(proposal.source, 'model');
    assert.deepEqual(proposal.options, { includePaths: ['^/blog'], limit: 25, allowSubdomains: true });
    for (const key of ['sitemap', 'maxDiscoveryDepth', 'excludePaths', 'color']) {
      assert.ok(proposal.notes.some((n) => n.startsWith(`dropped "${key}"`)), key);
    }
    const sent = model.requests[0] as { path: string; auth: string; body: { model: string; messages: Array<{ content: string }> } };
    assert.equal(sent.path, '/v1/chat/completions');
    assert.equal(sent.auth, 'Bearer sk-test');
    assert.equal(sent.body.model, 'test-model');
    assert.match(sent.body.messages[1].content, /Request: the blog, 25 pages/);
  });

  test('a failing model falls back to the rules, and says so', async () => {
    const proposal = await proposeCrawlOptions({ url: SITE, prompt: 'the blog, 25 pages', llm: model.llm });
    assert.equal(proposal.source, 'rules');
    assert.deepEqual(proposal.options, { limit: 25, includePaths: ['^/blog(/|$)'] });
    assert.match(proposal.notes[0], /the model failed \(model endpoint answered HTTP 503/);
  });

  test('the preview handler answers every 4.6 field, defaults filled', async () => {
    const handler = createParamsPreviewHandler({ llm: model.llm });
    const res = await handler(request({ url: SITE, prompt: 'seven pages' }));
    assert.deepEqual(res.body, {
      success: true,
      data: {
        url: SITE, includePaths: [], excludePaths: [], crawlEntireDomain: false, allowExternalLinks: false,
        allowSubdomains: false, sitemap: 'include', ignoreQueryParameters: false, ignoreRobotsTxt: false,
        deduplicateSimilarURLs: false, limit: 7,
      },
      source: 'model',
      notes: ['options generated by the model test-model'],
    });
  });
});

describe('params-preview handler without a model', () => {
  const handler = createParamsPreviewHandler({ llm: null });

  test('rules answer, with depth and delay shown when read', async () => {
    const res = await handler(request({ url: 'https://example.com/docs', prompt: 'the docs, 3 levels deep, 1 second between pages, skip the sitemap' }));
    const body = res.body as { data: Record<string, unknown>; source: string };
    assert.equal(body.source, 'rules');
    assert.deepEqual(body.data, {
      url: 'https://example.com/docs', includePaths: ['^/docs(/|$)'], excludePaths: [], maxDepth: 3, maxDiscoveryDepth: 3,
      crawlEntireDomain: false, allowExternalLinks: false, allowSubdomains: false, sitemap: 'skip',
      ignoreQueryParameters: false, ignoreRobotsTxt: false, deduplicateSimilarURLs: false, delay: 1, limit: 10_000,
    });
  });

  test('a bad body is a 400 with details', async () => {
    await assert.rejects(Promise.resolve().then(() => handler(request({ url: 'ftp://x', prompt: '' }))), (err: unknown) => {
      assert.ok(err instanceof HttpError);
      assert.equal(err.status, 400);
      assert.ok(Array.isArray(err.details));
      return true;
    });
  });
});

function request(body: unknown): RouteRequest {
  const team: TeamConfig = {
    id: 't', apiKeys: ['k'], credits: 1, rateLimits: {}, concurrency: 1, maxBrowserSessions: 1,
    features: { ignoreRobotsTxt: false, zeroDataRetention: false, searchEnterprise: [] },
  };
  return {
    method: 'POST', path: '/v2/crawl/params-preview', params: {}, query: new URLSearchParams(), body, headers: {},
    team, apiKey: 'k', requestId: 'r', baseUrl: 'http://127.0.0.1', signal: new AbortController().signal,
  };
}

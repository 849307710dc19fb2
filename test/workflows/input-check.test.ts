// The workflow's own check (input-check.ts) against the client's (input.ts): a valid input gives
// the same config, and what the workflow refuses itself (URLs, patterns, budgets, the pipeline's
// own fields) it refuses with the same line. Request options it passes through are the client's
// and the HTTP client's to refuse.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkPipelineInput } from '../../src/workflows/input-check.js';
import { parsePipelineInput } from '../../src/workflows/input.js';
import { checkParseDocumentsInput } from '../../src/workflows/parse-documents-check.js';
import { parseParseDocumentsInput } from '../../src/workflows/parse-documents-input.js';

const URL = 'https://site.example/';
const VALID: unknown[] = [
  { url: URL },
  { url: URL, mode: 'batch', stages: { map: false }, runId: 'r-1', tenant: 't', priorityKey: 2, apiKeyRef: 'customer-b' },
  { url: URL, map: { limit: 5, search: 'q', location: { country: 'de' } }, select: { include: ['^/docs/'], limit: 10 }, crawl: { limit: 5, includePaths: ['^/a'], scrapeOptions: { formats: ['markdown', { type: 'json', prompt: 'p' }] } } },
  { url: URL, batch: { scrapeOptions: { actions: [{ type: 'wait', milliseconds: 5 }] }, maxConcurrency: 2 } },
  { url: URL, interact: { match: '.*', prompt: 'hi' }, agent: { prompt: 'x', match: '^/p', strictConstrainToURLs: true, maxCredits: 50 } },
  { url: URL, support: { fixableFields: { crawl: ['limit'] } }, governor: { teamConcurrency: 4 }, budget: { credits: 0, waitForRaiseMs: 5 }, polling: { minIntervalMs: 500 } },
  { url: URL, changes: { series: 'a', webhookUrl: 'https://hooks.example/x' }, webhookUrl: 'https://hooks.example/', ignoreRobotsTxt: true, stallAfterMs: 60_000, deadlineMs: 3_600_000 },
];
const REFUSED: unknown[] = [
  null, [], {}, { url: 'ftp://site.example/' }, { url: 'http://169.254.169.254/latest/meta-data/' }, { url: URL, extra: 1 },
  { url: URL, mode: 'x', runId: 'a b', tenant: '', priorityKey: 9, apiKeyRef: 'fc-0123' },
  { url: URL, select: { include: ['^/(?!admin)', 'a'.repeat(1001)], limit: 0 } },
  { url: URL, crawl: { includePaths: ['(a)\\1'], excludePaths: Array.from({ length: 101 }, (_, i) => `^/p${i}`) } },
  { url: URL, crawl: { url: URL }, map: { url: URL } },
  { url: URL, interact: { match: '(?<=shop)/x', code: '1' } }, { url: URL, agent: { prompt: 'p', match: 'b'.repeat(1001) } },
  { url: URL, agent: { prompt: 'p', urls: ['http://[fd12::1]/'] } }, { url: URL, agent: { prompt: 'p', strictConstrainToURLs: true } },
  { url: URL, budget: { credits: 0 } }, { url: URL, budget: { credits: -1, strategy: 'x' } }, { url: URL, webhookUrl: 'http://100.64.0.9/hook' },
  { url: URL, changes: { series: 'a b', webhookUrl: 'http://10.0.0.1/x' } }, { url: URL, stallAfterMs: 5, deadlineMs: 1, polling: { minIntervalMs: 1 } },
  { url: URL, governor: { overcommit: 0, chunkPages: 0 }, support: { minConfidence: 'low' }, stages: { x: true } },
];

function outcome(f: () => unknown): unknown {
  try {
    return { config: f() };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

test('a valid input: the workflow\'s config is the client\'s', () => {
  for (const input of VALID) {
    for (const allowPrivateAddresses of [false, true]) {
      assert.deepEqual(outcome(() => checkPipelineInput(input, { allowPrivateAddresses })), outcome(() => parsePipelineInput(input, { allowPrivateAddresses })), JSON.stringify(input));
    }
  }
});

test('what the workflow refuses itself, it refuses with the client\'s line', () => {
  for (const input of REFUSED) {
    const workflow = outcome(() => checkPipelineInput(input, { allowPrivateAddresses: false }));
    assert.ok('error' in (workflow as object), `the workflow accepted ${JSON.stringify(input).slice(0, 100)}`);
    assert.deepEqual(workflow, outcome(() => parsePipelineInput(input, { allowPrivateAddresses: false })), JSON.stringify(input).slice(0, 100));
  }
});

test('parseDocuments: the workflow\'s check agrees with the client\'s', () => {
  const inputs: unknown[] = [
    { files: ['/a.pdf'] }, { files: ['/a', { path: '/b', contentType: 'application/pdf' }], options: { formats: ['markdown'] }, budget: { credits: 3 }, concurrency: 4 },
    {}, { files: [] }, { files: ['/a', '/a', 'rel', 3] }, { files: ['/a'], budget: { credits: 0 }, concurrency: 99, x: 1 }, { files: ['/a'], runId: 'a b', tenant: '', priorityKey: 9 },
  ];
  for (const input of inputs) assert.deepEqual(outcome(() => checkParseDocumentsInput(input)), outcome(() => parseParseDocumentsInput(input)), JSON.stringify(input));
});

// The workflow bundle preloads zod, the contract's rules and the workflows' input checks
// (workflows/preload.ts): frozen by the SDK, shared by every run. Each run must still check its
// input exactly as Node does: same output, same one-line messages naming field and rule. zod
// completes parts of itself on first use; a frozen one that still needed to would fail here (as
// "object is not extensible"), and so would a frozen schema (zod writes to its RegExps). The
// checks' schemas are built by the first run that needs them and kept for the others.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadBundleContext } from '../helpers/bundle-context.js';
import { cachedWorkflowBundle } from '../helpers/workflow-bundle.js';
import { readFileSync } from 'node:fs';
import { checkPipelineInput } from '../../src/workflows/input-check.js';
import { checkParseDocumentsInput } from '../../src/workflows/parse-documents-check.js';

const PIPELINE_INPUTS: unknown[] = [
  null, 'x', [], {}, { url: 'https://a.com' }, { url: undefined },
  { url: 'https://a.com', mode: 'batch', stages: { map: false, x: 1 }, runId: 'a b', tenant: '', priorityKey: 9 },
  { url: 'https://a.com', map: { limit: 5, search: 'q' }, select: { include: ['(', 'a'], limit: 0 }, crawl: { limit: 5, scrapeOptions: { formats: ['markdown', { type: 'json' }, 'nope'], waitFor: 70000, headers: { a: 1 } } } },
  { url: 'https://a.com', batch: { scrapeOptions: { actions: [{ type: 'wait' }, { type: 'zz' }] }, maxConcurrency: 0 } },
  { url: 'https://a.com', interact: { match: '.*' } }, { url: 'https://a.com', interact: { match: '.*', prompt: 'hi', maxPages: 3 } },
  { url: 'https://a.com', agent: { prompt: 'x', strictConstrainToURLs: true } },
  { url: 'https://a.com', support: {}, governor: {}, budget: { credits: 0, waitForRaiseMs: 5 }, polling: { minIntervalMs: 100 } },
  { url: 'https://a.com', changes: { series: 'a', webhookUrl: 'http://10.0.0.1/x' }, webhookUrl: 'http://127.0.0.1/', ignoreRobotsTxt: 'yes' },
  { url: 'https://a.com', budget: null, mode: 'x', extra: 1 },
];
const PARSE_INPUTS: unknown[] = [
  {}, { files: [] }, { files: ['/a', '/a', 'rel', { path: '/b', contentType: 'x' }, 3] },
  { files: ['/a'], options: { formats: 1 }, budget: { credits: 0 }, concurrency: 99, x: 1 }, { files: ['/a'], runId: 'ok', tenant: 't', priorityKey: 2 },
];

function outcome(f: () => unknown): string {
  try {
    return JSON.stringify(f());
  } catch (err) {
    return `${(err as Error).name}: ${(err as Error).message}`;
  }
}

test('each run of the preloaded, frozen bundle validates its input as Node does', async () => {
  const bundle = loadBundleContext(readFileSync(await cachedWorkflowBundle(), 'utf8'));
  assert.ok(bundle.sharedModules.some((id) => id.includes('node_modules/zod/')), 'zod is preloaded');
  assert.ok(bundle.sharedModules.some((id) => id.includes('node_modules/re2js/')), 'the pattern rules are preloaded');
  assert.ok(!bundle.sharedModules.some((id) => id.includes('contract/src/schemas/') && !/(issues|factories)\.ts$/.test(id)), 'no request schema is preloaded');
  assert.ok(bundle.sharedModules.some((id) => id.endsWith('src/workflows/input-check.ts')), 'the input check is preloaded (its schemas built once)');
  // Several runs: the first builds the schemas, the others parse with them (zod wrote to them meanwhile).
  for (let run = 0; run < 3; run++) {
    const modules = bundle.startRun();
    const input = modules.module('src/workflows/input-check.ts') as { checkPipelineInput: typeof checkPipelineInput };
    const parseDocuments = modules.module('src/workflows/parse-documents-check.ts') as { checkParseDocumentsInput: typeof checkParseDocumentsInput };
    for (const value of PIPELINE_INPUTS) {
      for (const allowPrivateAddresses of [false, true]) {
        assert.equal(outcome(() => input.checkPipelineInput(value, { allowPrivateAddresses })), outcome(() => checkPipelineInput(value, { allowPrivateAddresses })), JSON.stringify(value));
      }
    }
    for (const value of PARSE_INPUTS) {
      assert.equal(outcome(() => parseDocuments.checkParseDocumentsInput(value)), outcome(() => checkParseDocumentsInput(value)), JSON.stringify(value));
    }
  }
});

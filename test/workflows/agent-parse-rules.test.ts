// Pure rules of the agent stage (its maxCredits under the run's budget, its input) and of the
// parseDocuments input: validation names the field and the rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePipelineInput, PipelineInputError } from '../../src/workflows/input.js';
import { parseParseDocumentsInput, ParseDocumentsInputError } from '../../src/workflows/parse-documents-input.js';
import { clampAgentCredits } from '../../src/workflows/stages/agent.js';

test('agent maxCredits: kept when it fits, clamped to what is left, skipped when nothing is', () => {
  assert.deepEqual(clampAgentCredits(50, Number.POSITIVE_INFINITY), { kind: 'run', maxCredits: 50 });
  assert.deepEqual(clampAgentCredits(undefined, Number.POSITIVE_INFINITY), { kind: 'run', maxCredits: undefined });
  assert.deepEqual(clampAgentCredits(5, 8), { kind: 'run', maxCredits: 5 });
  assert.deepEqual(clampAgentCredits(8, 8), { kind: 'run', maxCredits: 8 });
  assert.deepEqual(clampAgentCredits(50, 7.5), { kind: 'run', maxCredits: 7, event: 'agent maxCredits clamped from 50 to 7 (budget)' });
  assert.deepEqual(clampAgentCredits(undefined, 3), { kind: 'run', maxCredits: 3, event: 'agent maxCredits clamped from unset to 3 (budget)' });
  const none = clampAgentCredits(10, 0.5);
  assert.equal(none.kind, 'skip');
  assert.match(none.kind === 'skip' ? none.reason : '', /^budget: no credits left for the agent/);
});

test('pipeline input: the agent stage takes the agent request fields, validated', () => {
  const ok = parsePipelineInput({ url: 'http://a.test/', agent: { prompt: 'Find the price', maxCredits: 20, match: '/pricing' } }, { allowPrivateAddresses: false });
  assert.equal(ok.agent?.maxUrls, 10);
  assert.equal(parsePipelineInput({ url: 'http://a.test/', stages: { agent: false } }, { allowPrivateAddresses: false }).stages?.agent, false);
  const bad: Array<[unknown, RegExp]> = [
    [{ agent: {} }, /agent\.prompt: is required/],
    [{ agent: { prompt: '' } }, /agent\.prompt: must not be empty/],
    [{ agent: { prompt: 'x', maxCredits: 0 } }, /agent\.maxCredits: must be at least 1/],
    [{ agent: { prompt: 'x', urls: ['ftp://x.test/'] } }, /agent\.urls\.0: must be a valid http\(s\) URL/],
    [{ agent: { prompt: 'x', match: '([' } }, /agent\.match: must be a valid regular expression/],
    [{ agent: { prompt: 'x', strictConstrainToURLs: true } }, /agent\.urls: urls or match is required when strictConstrainToURLs is true/],
    [{ agent: { prompt: 'x', webhook: 'http://x.test/' } }, /agent\.webhook: is not a known field/],
    [{ agent: { prompt: 'x', maxUrls: 101 } }, /agent\.maxUrls: must be at most 100/],
  ];
  for (const [extra, message] of bad) {
    assert.throws(() => parsePipelineInput({ url: 'http://a.test/', ...(extra as object) }, { allowPrivateAddresses: false }), (err: unknown) => err instanceof PipelineInputError && message.test(err.message), JSON.stringify(extra));
  }
});

test('parseDocuments input: files, options, budget; each bad field named with its rule', () => {
  const ok = parseParseDocumentsInput({ files: ['/data/a.pdf', { path: '/data/b.docx', filename: 'b.docx' }], budget: { credits: 3 } });
  assert.equal(ok.concurrency, 2);
  assert.equal(ok.maxAttempts, 4);
  assert.equal(ok.filesPerRun, 200);
  const bad: Array<[unknown, RegExp]> = [
    [{}, /files: is required/],
    [{ files: [] }, /files: must have at least 1 item/],
    [{ files: '/data/a.pdf' }, /files: must be an array/],
    [{ files: [42] }, /files\.0: must be an absolute path \(a string\) or \{ path, filename\?, contentType\? \}/],
    [{ files: ['/ok.txt', 'relative/b.txt'] }, /files\.1: must be an absolute path readable by the worker/],
    [{ files: [{ path: 'x.txt' }] }, /files\.0\.path: must be an absolute path/],
    [{ files: [{ path: '/x.txt', contentType: 'pdf' }] }, /files\.0\.contentType: must be a MIME type/],
    [{ files: [{ path: '/x.txt', size: 1 }] }, /files\.0\.size: is not a known field/],
    [{ files: ['/a.txt', '/a.txt'] }, /files\.1: duplicate path \(also files\.0\)/],
    [{ files: ['/a.txt'], options: { formats: ['nope'] } }, /options\.formats\.0/],
    [{ files: ['/a.txt'], budget: { credits: 0 } }, /budget\.credits: must be at least 1/],
    [{ files: ['/a.txt'], runId: 'a b' }, /runId: must be 1-128 letters/],
    [{ files: ['/a.txt'], concurrency: 0 }, /concurrency: must be at least 1/],
    [{ files: ['/a.txt'], url: 'http://x.test/' }, /url: is not a known field/],
  ];
  for (const [input, message] of bad) {
    assert.throws(() => parseParseDocumentsInput(input), (err: unknown) => err instanceof ParseDocumentsInputError && message.test(err.message), JSON.stringify(input));
  }
});

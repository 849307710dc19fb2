// The stall time and the run deadline as settings: the input's rules (one line naming the field),
// the deployment's WEBDATA_STALL_AFTER_MS recorded in a run's input by the starting client (a
// run's own value wins), and the default that fits the job.
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { preparePipelineInput } from '../../src/client/prepare-input.js';
import { DEFAULT_STALL_AFTER_MS, stallAfterMs } from '../../src/workflows/progress-rule.js';
import { parsePipelineInput, PipelineInputError, type PipelineInput } from '../../src/workflows/input.js';

const URL_ = 'https://example.com/';
const saved = process.env.WEBDATA_STALL_AFTER_MS;
afterEach(() => {
  if (saved === undefined) delete process.env.WEBDATA_STALL_AFTER_MS;
  else process.env.WEBDATA_STALL_AFTER_MS = saved;
});

function issues(input: Partial<PipelineInput>): string {
  try {
    parsePipelineInput({ url: URL_, ...input }, { allowPrivateAddresses: false });
  } catch (err) {
    assert.ok(err instanceof PipelineInputError);
    return err.message;
  }
  return '';
}

test('stallAfterMs and deadlineMs: whole milliseconds, at least 10 s, at most 7 days; one line naming the field', () => {
  assert.equal(issues({ stallAfterMs: 10_000, deadlineMs: 3_600_000 }), '');
  assert.equal(issues({ stallAfterMs: 9_999 }), 'invalid pipeline input: stallAfterMs: must be at least 10000');
  assert.equal(issues({ deadlineMs: 500 }), 'invalid pipeline input: deadlineMs: must be at least 10000');
  assert.equal(issues({ stallAfterMs: 8 * 86_400_000 }), 'invalid pipeline input: stallAfterMs: must be at most 604800000');
  assert.match(issues({ deadlineMs: 1.5e4 + 0.5 }), /^invalid pipeline input: deadlineMs: /);
});

test('the deployment stall time is recorded in the input of a run that sets none; a run\'s own wins', () => {
  process.env.WEBDATA_STALL_AFTER_MS = '120000';
  assert.equal(preparePipelineInput({ url: URL_ }).stallAfterMs, 120_000);
  assert.equal(preparePipelineInput({ url: URL_, stallAfterMs: 30_000 }).stallAfterMs, 30_000);
  delete process.env.WEBDATA_STALL_AFTER_MS;
  assert.equal(preparePipelineInput({ url: URL_ }).stallAfterMs, undefined);
  process.env.WEBDATA_STALL_AFTER_MS = '5s';
  assert.throws(() => preparePipelineInput({ url: URL_ }), { message: 'invalid pipeline input: WEBDATA_STALL_AFTER_MS: must be a whole number of milliseconds, at least 10000, got "5s"' });
});

test('the default fits the job: 5 min, 20 pages of a crawl\'s delay, two of the longest poll intervals', () => {
  const config = (input: Partial<PipelineInput>) => parsePipelineInput({ url: URL_, ...input }, { allowPrivateAddresses: false });
  assert.equal(stallAfterMs(config({}), 'crawl'), DEFAULT_STALL_AFTER_MS);
  assert.equal(stallAfterMs(config({ crawl: { delay: 30 } }), 'crawl'), 600_000);
  assert.equal(stallAfterMs(config({ crawl: { delay: 30 } }), 'batch'), DEFAULT_STALL_AFTER_MS);
  assert.equal(stallAfterMs(config({ polling: { minIntervalMs: 1_000, maxIntervalMs: 3_600_000 } }), 'batch'), 7_200_000);
  assert.equal(stallAfterMs(config({ stallAfterMs: 15_000, crawl: { delay: 30 } }), 'crawl'), 15_000);
});

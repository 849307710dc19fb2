// One list of error kinds: the client's classification, the activity failure mapping and the
// retry policies all read retryability from the contract's ERROR_KIND_RETRYABLE.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApplicationFailure } from '@temporalio/common';
import { ERROR_KINDS, ERROR_KIND_RETRYABLE, NON_RETRYABLE_ERROR_KINDS } from '../../packages/contract/src/index.js';
import { WebDataApiError } from '../../packages/client/src/index.js';
import { toActivityFailure } from '../../src/activities/failures.js';
import { readRetryPolicy } from '../../src/shared/retry-policies.js';

test('each kind fails an activity as retryable or not, as the contract lists it', () => {
  for (const kind of ERROR_KINDS) {
    const failure = toActivityFailure(new WebDataApiError({ kind, message: kind, retryable: ERROR_KIND_RETRYABLE[kind] }));
    assert.ok(failure instanceof ApplicationFailure);
    assert.equal(failure.type, kind);
    assert.equal(failure.nonRetryable, !ERROR_KIND_RETRYABLE[kind], kind);
  }
});

test('retry policies name exactly the non-retryable kinds', () => {
  assert.deepEqual([...(readRetryPolicy.nonRetryableErrorTypes ?? [])].sort(), [...NON_RETRYABLE_ERROR_KINDS].sort());
  assert.deepEqual([...NON_RETRYABLE_ERROR_KINDS].sort(), ERROR_KINDS.filter((k) => !ERROR_KIND_RETRYABLE[k]).sort());
});

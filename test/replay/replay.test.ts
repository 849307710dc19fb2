// Replays recorded histories of every pipeline path against the current workflow code: a
// change that would break running workflows (non-determinism) fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { Worker } from '@temporalio/worker';
import { WORKFLOWS_PATH } from '../../src/worker.js';
import { workflowBundlerOptions } from '../../src/worker/bundler-options.js';
import { decodeHistory, HISTORIES_DIR, HISTORY_EXTENSION } from '../helpers/histories.js';
import { quietTemporalLogs } from '../helpers/temporal.js';

const REQUIRED = ['success', 'failure-repaired', 'budget-stop', 'cancelled', 'tenant-budget', 'batch-append', 'batch-append-follows-on', 'limit-cut', 'agent-polled', 'lost-job-recovered', 'team-governor', 'team-governor-notices', 'team-governor-workflow'];

test('recorded histories of every path replay against the current workflow code', async () => {
  quietTemporalLogs();
  const files = readdirSync(HISTORIES_DIR).filter((f) => f.endsWith(HISTORY_EXTENSION));
  for (const name of REQUIRED) {
    assert.ok(files.includes(`${name}${HISTORY_EXTENSION}`), `missing recorded history ${name}${HISTORY_EXTENSION} (record with RECORD_HISTORIES=1 npm test)`);
  }
  // Each replayed under its own workflow id, as a worker replays it: a run's lease keys (and the
  // governor's notices naming them) are built from it.
  const histories = files.map((f) => {
    const history = decodeHistory(readFileSync(HISTORIES_DIR + f));
    return { workflowId: history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowId || f.slice(0, -HISTORY_EXTENSION.length), history, file: f };
  });
  const fileOf = new Map(histories.map((h) => [h.workflowId, h.file]));
  const failures: string[] = [];
  for await (const result of Worker.runReplayHistories({ workflowsPath: WORKFLOWS_PATH, bundlerOptions: workflowBundlerOptions(), replayName: 'webdata-replay' }, histories)) {
    if (result.error) failures.push(`${fileOf.get(result.workflowId) ?? result.workflowId}: ${result.error.message}`);
  }
  assert.deepEqual(failures, []);
});

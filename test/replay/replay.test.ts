// Replays recorded histories of every pipeline path against the current workflow code: a
// change that would break running workflows (non-determinism) fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { Worker } from '@temporalio/worker';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { WORKFLOWS_PATH } from '../../src/worker.js';
import { HISTORIES_DIR } from '../helpers/histories.js';
import { quietTemporalLogs } from '../helpers/temporal.js';

const REQUIRED = ['success', 'failure-repaired', 'budget-stop', 'cancelled'];

test('recorded histories of every path replay against the current workflow code', async () => {
  quietTemporalLogs();
  const files = readdirSync(HISTORIES_DIR).filter((f) => f.endsWith('.json'));
  for (const name of REQUIRED) assert.ok(files.includes(`${name}.json`), `missing recorded history ${name}.json (record with RECORD_HISTORIES=1)`);
  const histories = files.map((f) => ({ workflowId: f.replace(/\.json$/, ''), history: historyFromJSON(JSON.parse(readFileSync(HISTORIES_DIR + f, 'utf8'))) }));
  const failures: string[] = [];
  for await (const result of Worker.runReplayHistories({ workflowsPath: WORKFLOWS_PATH, replayName: 'webdata-replay' }, histories)) {
    if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
  }
  assert.deepEqual(failures, []);
});

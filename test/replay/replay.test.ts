// Replays recorded histories of every pipeline path against the current workflow code: a
// change that would break running workflows (non-determinism) fails here. 1.0 removed the 0.x
// patches, so the histories 0.x workers recorded replay against the 0.x bundle (the deployment
// version kept for their runs, docs/operations.md "Upgrade safely"), and a 0.x pipeline history
// is shown to fail on 1.0: why the upgrade pins runs to their version.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { Worker, type ReplayWorkerOptions } from '@temporalio/worker';
import { WORKFLOWS_PATH } from '../../src/worker.js';
import { workflowBundlerOptions } from '../../src/worker/bundler-options.js';
import { decodeHistory, HISTORIES_0X_DIR, HISTORIES_DIR, HISTORY_EXTENSION } from '../helpers/histories.js';
import { RELEASE_0X, releaseWorkflowBundle } from '../helpers/release-bundle.js';
import { quietTemporalLogs } from '../helpers/temporal.js';

const REQUIRED = ['success', 'failure-repaired', 'budget-stop', 'cancelled', 'tenant-budget', 'batch-append-follows-on', 'limit-cut', 'limit-cut-from-collector', 'success-before-local-starts', 'agent-polled', 'lost-job-recovered', 'team-governor-notices', 'team-governor-workflow', 'tenant-slot-waited', 'tenant-ledger-slots', 'tenant-hour-waited'];
/** The long-lived workflows (continue-as-new): 1.0 keeps their patches deprecated, so it replays 0.x's histories too. */
const ENTITIES = ['team-governor-workflow', 'tenant-ledger-slots'];

function histories(dir: string, names?: string[]) {
  const files = readdirSync(dir).filter((f) => f.endsWith(HISTORY_EXTENSION) && (!names || names.includes(f.slice(0, -HISTORY_EXTENSION.length))));
  // Each replayed under its own workflow id, as a worker replays it: a run's lease keys (and the
  // governor's notices naming them) are built from it.
  return files.map((f) => {
    const history = decodeHistory(readFileSync(dir + f));
    return { workflowId: history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowId || f.slice(0, -HISTORY_EXTENSION.length), history, file: f };
  });
}

async function replayFailures(options: ReplayWorkerOptions, list: ReturnType<typeof histories>): Promise<string[]> {
  const fileOf = new Map(list.map((h) => [h.workflowId, h.file]));
  const failures: string[] = [];
  for await (const result of Worker.runReplayHistories(options, list)) {
    if (result.error) failures.push(`${fileOf.get(result.workflowId) ?? result.workflowId}: ${result.error.message}`);
  }
  return failures;
}

const current = (): ReplayWorkerOptions => ({ workflowsPath: WORKFLOWS_PATH, bundlerOptions: workflowBundlerOptions(), replayName: 'webdata-replay' });

test('recorded histories of every path replay against the current workflow code', async () => {
  quietTemporalLogs();
  const list = histories(HISTORIES_DIR);
  for (const name of REQUIRED) {
    assert.ok(list.some((h) => h.file === `${name}${HISTORY_EXTENSION}`), `missing recorded history ${name}${HISTORY_EXTENSION} (record with RECORD_HISTORIES=1, CONTRIBUTING.md)`);
  }
  assert.deepEqual(await replayFailures(current(), list), []);
});

test('0.x histories replay on the 0.x bundle; on 1.0 only the long-lived workflows\' do', async () => {
  quietTemporalLogs();
  const old = histories(HISTORIES_0X_DIR);
  assert.ok(old.length >= 10, `${old.length} 0.x histories`);
  const bundle = await releaseWorkflowBundle(RELEASE_0X);
  assert.deepEqual(await replayFailures({ workflowBundle: { codePath: bundle }, replayName: 'webdata-replay-0x' }, old), []);
  // A tenant ledger or team governor started on 0.x can be moved to 1.0 (docs/operations.md).
  assert.deepEqual(await replayFailures(current(), histories(HISTORIES_0X_DIR, ENTITIES)), []);
  // A pipeline run cannot: its history has markers of patches 1.0 no longer asks about.
  const [failure] = await replayFailures(current(), histories(HISTORIES_0X_DIR, ['success']));
  assert.match(failure ?? 'replayed', /nondeterminism/i);
});

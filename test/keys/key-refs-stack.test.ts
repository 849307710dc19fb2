// Keys by reference on the real stack: a local service with two teams, a worker whose default key
// is team A's and whose WEBDATA_API_KEYS-style file names team B's key `customer-b`. A run that
// names no key is billed to A, one that names `customer-b` to B (the service's own records), each
// team's jobs pass through its own governor, B's raw history holds its key name and never its
// key, and a run naming an unknown key fails with one line.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import proto from '@temporalio/proto';
import { WorkflowFailedError } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { WebDataClient } from 'webdata-client';
import { defaultLocalTeam } from 'webdata-service';
import type { DevStack } from '../../src/cli/dev-stack.js';
import { getProgress, startPipeline } from '../../src/client/pipeline.js';
import { renderProgress } from '../../src/cli/progress-view.js';
import { fileApiKeyResolver } from '../../src/keys/index.js';
import { governorWorkflowId } from '../../src/shared/team-governor-messages.js';
import { createWebDataWorker } from '../../src/worker/worker.js';
import type { PipelineInput } from '../../src/workflows/input.js';
import { runToEnd, startStack, TEST_POLLING } from '../helpers/stack.js';
import { pipelineWorkflowBundle } from '../helpers/workflow-bundle.js';

const KEY_B = 'team-b-secret-key-0001';
/** A key no team has: the service answers 401, and the failure must not repeat it. */
const WRONG_KEY = 'revoked-secret-key-0002';

let stack: DevStack;
let worker: Worker;
let running: Promise<void>;
let teamB: WebDataClient;
let dir: string;

/** The jobs a team's key sees in the service's activity listing (its own records). */
async function jobsOf(client: WebDataClient): Promise<Set<string>> {
  const ids = new Set<string>();
  let cursor: string | undefined;
  for (;;) {
    const page = await client.listActivity({ limit: 100, cursor });
    for (const e of page.data) ids.add(e.id);
    if (!page.has_more || !page.cursor) return ids;
    cursor = page.cursor;
  }
}

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('key-refs-stack', () => {
  before(async () => {
    const team = defaultLocalTeam();
    stack = await startStack({ worker: false, teams: [team, { ...team, id: 'team-b', apiKeys: [KEY_B] }] });
    teamB = new WebDataClient({ apiKey: KEY_B, baseUrl: stack.service.url, allowPrivateAddresses: stack.privateHosts });
    dir = mkdtempSync(join(tmpdir(), 'webdata-keys-'));
    writeFileSync(join(dir, 'keys.json'), JSON.stringify({ 'customer-b': KEY_B, revoked: WRONG_KEY }), { mode: 0o600 });
    worker = await createWebDataWorker({
      connection: stack.temporal.env.nativeConnection,
      namespace: stack.temporal.namespace,
      taskQueue: stack.taskQueue,
      client: stack.api,
      store: stack.store,
      allowPrivateAddresses: stack.privateHosts,
      workflowBundlePath: await pipelineWorkflowBundle(),
      apiKeys: fileApiKeyResolver(join(dir, 'keys.json')),
    });
    running = worker.run();
  });
  after(async () => {
    if (worker?.getState() === 'RUNNING') worker.shutdown();
    await running;
    await teamB?.close();
    await stack?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const input = (tenant: string): PipelineInput => ({
    url: `${stack.service.siteUrl as string}/`,
    mode: 'batch',
    tenant,
    select: { limit: 6 },
    governor: { chunkPages: 10 },
    stages: { interact: false, support: false },
  });

  test('a run without a name is billed to the default team, a run naming customer-b to team B, each through its own governor', async () => {
    const creditsA = (await stack.api.getCreditUsage()).data.remainingCredits;
    const creditsB = (await teamB.getCreditUsage()).data.remainingCredits;
    const stamp = Date.now();
    const [a, b] = await Promise.all([
      runToEnd(stack, input('tenant-a'), `keys-a-${stamp}`),
      runToEnd(stack, { ...input('tenant-b'), apiKeyRef: 'customer-b' }, `keys-b-${stamp}`),
    ]);
    assert.equal(a.result.status, 'completed', JSON.stringify(a.result.stages));
    assert.equal(b.result.status, 'completed', JSON.stringify(b.result.stages));
    const jobsA = Object.values(a.result.jobs);
    const jobsB = Object.values(b.result.jobs);
    assert.ok(jobsA.length > 0 && jobsB.length > 0, 'both runs started jobs');

    // The service's records: each team's key lists its own run's jobs and none of the other's.
    const [seenA, seenB] = await Promise.all([jobsOf(stack.api), jobsOf(teamB)]);
    for (const id of jobsA) assert.ok(seenA.has(id) && !seenB.has(id), `job ${id} of run A billed to team A only`);
    for (const id of jobsB) assert.ok(seenB.has(id) && !seenA.has(id), `job ${id} of run B billed to team B only`);
    // What each run spent left its own team's credits.
    assert.ok(b.result.credits.spent > 0 && a.result.credits.spent > 0);
    assert.equal(creditsB - (await teamB.getCreditUsage()).data.remainingCredits, b.result.credits.spent, 'team B paid run B');
    assert.equal(creditsA - (await stack.api.getCreditUsage()).data.remainingCredits, a.result.credits.spent, 'team A paid run A');

    // Each team's governor (its workflow id is per team) granted its own run's shares.
    assert.notEqual(teamB.teamId, stack.api.teamId);
    for (const team of [stack.api.teamId, teamB.teamId]) {
      const governor = await stack.temporal.client.workflow.getHandle(governorWorkflowId(team)).describe();
      assert.equal(governor.type, 'webdataTeamGovernor');
    }

    // Run B's raw history (no decoding): its key name in the activities' header, its key nowhere.
    const raw = await stack.temporal.client.workflowService.getWorkflowExecutionHistory({ namespace: stack.temporal.namespace, execution: { workflowId: b.id } });
    const bytes = Buffer.from(proto.temporal.api.history.v1.History.encode(raw.history ?? {}).finish());
    assert.ok(bytes.length > 1000);
    assert.ok(!bytes.includes(KEY_B), 'team B\'s key is not in run B\'s history');
    assert.ok(!bytes.includes(Buffer.from(KEY_B).toString('base64')), 'nor in base64');
    assert.ok(bytes.includes('webdata-api-key-ref') && bytes.includes('"customer-b"'), 'the key name is carried in the header');
  });

  test('a run naming an unknown key fails at its first activity with one line, and spends nothing', async () => {
    const handle = await startPipeline(stack.temporal.client, { ...input('tenant-c'), apiKeyRef: 'acme', polling: TEST_POLLING }, { taskQueue: stack.taskQueue, workflowId: `keys-c-${Date.now()}` });
    const err = await handle.result().then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof WorkflowFailedError, `the run failed, got ${String(err)}`);
    const line = `apiKeyRef: no key named "acme" (WEBDATA_API_KEYS=file:${join(dir, 'keys.json')}: add "acme" to the file)`;
    assert.equal(err.cause?.message, line);
    const history = await handle.fetchHistory();
    // Its first activity (taking the tenant's run slot) resolves the name and fails: no call of
    // the service is scheduled; only the slot's give-back follows.
    const scheduled = (history.events ?? []).map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name).filter((n): n is string => n !== undefined);
    assert.deepEqual(scheduled, ['acquireTenantSlot', 'releaseTenantSlot'], `no call of the service was scheduled: ${scheduled.join(', ')}`);
    // `webdata status` shows the failed stage with the line.
    const shown = renderProgress(await getProgress(stack.temporal.client, handle.workflowId)).join('\n');
    assert.ok(shown.includes(line), shown);

    // A client with the worker's setting refuses the name before any run starts.
    await assert.rejects(
      startPipeline(stack.temporal.client, { ...input('tenant-c'), apiKeyRef: 'acme' }, { taskQueue: stack.taskQueue, workflowId: `keys-c2-${Date.now()}`, apiKeys: fileApiKeyResolver(join(dir, 'keys.json')) }),
      (e: Error) => e.message === `invalid pipeline input: apiKeyRef: no key named "acme" (WEBDATA_API_KEYS=file:${join(dir, 'keys.json')}: add "acme" to the file)`,
    );
  });

  test('a name whose key the service refuses (401) fails the run without the key in its result or history', async () => {
    const { id, result } = await runToEnd(stack, { ...input('tenant-d'), apiKeyRef: 'revoked' }, `keys-d-${Date.now()}`);
    assert.equal(result.status, 'failed');
    const text = JSON.stringify(result);
    assert.match(text, /unauthorized|401/i);
    const raw = await stack.temporal.client.workflowService.getWorkflowExecutionHistory({ namespace: stack.temporal.namespace, execution: { workflowId: id } });
    const bytes = Buffer.from(proto.temporal.api.history.v1.History.encode(raw.history ?? {}).finish());
    for (const form of [WRONG_KEY, Buffer.from(WRONG_KEY).toString('base64')]) {
      assert.ok(!text.includes(form) && !bytes.includes(form), 'the refused key is nowhere');
    }
  });
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readWorkerSettings, WorkerSettingsError } from '../../src/config/worker-env.js';
import { describeHeapLimit } from '../../src/worker/worker.js';

test('worker settings: every problem on its own line, naming the variable, never echoing the key', () => {
  try {
    readWorkerSettings({ WEBDATA_API_URL: 'ftp://x', WEBDATA_MAX_CONCURRENT_ACTIVITIES: 'many', WEBDATA_MAX_ACTIVITIES_PER_SECOND: '0' });
    assert.fail('expected an error');
  } catch (err) {
    assert.ok(err instanceof WorkerSettingsError);
    const lines = err.problems;
    assert.ok(lines.some((l) => l.startsWith('WEBDATA_API_URL: ')), lines.join('\n'));
    assert.ok(lines.some((l) => l.startsWith('WEBDATA_API_KEY: is required')), lines.join('\n'));
    assert.ok(lines.some((l) => l.startsWith('WEBDATA_MAX_CONCURRENT_ACTIVITIES: must be a whole number')), lines.join('\n'));
    assert.ok(lines.some((l) => l.startsWith('WEBDATA_MAX_ACTIVITIES_PER_SECOND: must be')), lines.join('\n'));
  }
  const key = 'wd-secret-key-123';
  assert.throws(() => readWorkerSettings({ WEBDATA_API_URL: 'nope', WEBDATA_API_KEY: key }), (err: Error) => !err.message.includes(key));
  const ok = readWorkerSettings({ WEBDATA_API_URL: 'http://127.0.0.1:3002', WEBDATA_API_KEY: key, WEBDATA_MAX_ACTIVITIES_PER_SECOND: '2.5' });
  assert.equal(ok.taskQueue, 'webdata');
  assert.equal(ok.store, '.data/store');
  assert.equal(ok.maxTaskQueueActivitiesPerSecond, 2.5);
});

test('worker settings: WEBDATA_ROBOTS_USER_AGENT is a robots.txt product token; unset means the default agent', () => {
  const base = { WEBDATA_API_URL: 'http://127.0.0.1:3002', WEBDATA_API_KEY: 'wd-secret-key-123' };
  assert.equal(readWorkerSettings(base).robotsUserAgent, undefined);
  assert.equal(readWorkerSettings({ ...base, WEBDATA_ROBOTS_USER_AGENT: 'FirecrawlAgent' }).robotsUserAgent, 'FirecrawlAgent');
  assert.throws(() => readWorkerSettings({ ...base, WEBDATA_ROBOTS_USER_AGENT: 'Mozilla/5.0 (x)' }), (err: Error) => err.message.startsWith('WEBDATA_ROBOTS_USER_AGENT: must be a robots.txt product token'));
});

test('worker settings: WEBDATA_DEPLOYMENT_NAME and WEBDATA_BUILD_ID together join a worker deployment; one alone is a problem', () => {
  const base = { WEBDATA_API_URL: 'http://127.0.0.1:3002', WEBDATA_API_KEY: 'wd-secret-key-123' };
  assert.equal(readWorkerSettings(base).deployment, undefined);
  assert.deepEqual(readWorkerSettings({ ...base, WEBDATA_DEPLOYMENT_NAME: 'webdata', WEBDATA_BUILD_ID: '2026.11.23-1' }).deployment, { deploymentName: 'webdata', buildId: '2026.11.23-1' });
  assert.throws(() => readWorkerSettings({ ...base, WEBDATA_DEPLOYMENT_NAME: 'webdata' }), (err: Error) => err.message === 'WEBDATA_BUILD_ID: is required with WEBDATA_DEPLOYMENT_NAME (worker versioning needs both)');
  assert.throws(() => readWorkerSettings({ ...base, WEBDATA_BUILD_ID: 'abc' }), (err: Error) => err.message.startsWith('WEBDATA_DEPLOYMENT_NAME: is required with WEBDATA_BUILD_ID'));
  assert.throws(() => readWorkerSettings({ ...base, WEBDATA_DEPLOYMENT_NAME: 'web.data', WEBDATA_BUILD_ID: 'abc' }), (err: Error) => err.message.startsWith('WEBDATA_DEPLOYMENT_NAME: must be a name without dots'));
});

test('worker settings: WEBDATA_WORKFLOW_THREADS is a whole number ≥ 1; unset keeps the SDK default', () => {
  const base = { WEBDATA_API_URL: 'http://127.0.0.1:3002', WEBDATA_API_KEY: 'wd-secret-key-123' };
  assert.equal(readWorkerSettings(base).workflowThreads, undefined);
  assert.equal(readWorkerSettings({ ...base, WEBDATA_WORKFLOW_THREADS: '2' }).workflowThreads, 2);
  assert.throws(() => readWorkerSettings({ ...base, WEBDATA_WORKFLOW_THREADS: '0' }), (err: Error) => err.message.startsWith('WEBDATA_WORKFLOW_THREADS: must be at least 1'));
});

test('worker settings: WEBDATA_WORKFLOW_TASK_POLLERS is autoscaling or a whole number ≥ 1; unset leaves the worker its default', () => {
  const base = { WEBDATA_API_URL: 'http://127.0.0.1:3002', WEBDATA_API_KEY: 'wd-secret-key-123' };
  assert.equal(readWorkerSettings(base).workflowTaskPollers, undefined);
  assert.equal(readWorkerSettings({ ...base, WEBDATA_WORKFLOW_TASK_POLLERS: 'autoscaling' }).workflowTaskPollers, 'autoscaling');
  assert.equal(readWorkerSettings({ ...base, WEBDATA_WORKFLOW_TASK_POLLERS: '20' }).workflowTaskPollers, 20);
  for (const bad of ['0', 'auto', '-1', '2.5']) {
    assert.throws(() => readWorkerSettings({ ...base, WEBDATA_WORKFLOW_TASK_POLLERS: bad }), (err: Error) => err.message === 'WEBDATA_WORKFLOW_TASK_POLLERS: must be autoscaling or a whole number of at least 1 (a fixed maximum of polls)', bad);
  }
});

test('worker settings: WEBDATA_MAX_CACHED_WORKFLOWS and WEBDATA_FOLLOW_MAX_IDLE_MS are whole numbers ≥ 1; unset keeps the defaults', () => {
  const base = { WEBDATA_API_URL: 'http://127.0.0.1:3002', WEBDATA_API_KEY: 'wd-secret-key-123' };
  assert.equal(readWorkerSettings(base).maxCachedWorkflows, undefined);
  assert.equal(readWorkerSettings(base).followMaxIdleMs, undefined);
  assert.equal(readWorkerSettings({ ...base, WEBDATA_MAX_CACHED_WORKFLOWS: '250' }).maxCachedWorkflows, 250);
  assert.equal(readWorkerSettings({ ...base, WEBDATA_FOLLOW_MAX_IDLE_MS: '2000' }).followMaxIdleMs, 2000);
  assert.throws(() => readWorkerSettings({ ...base, WEBDATA_MAX_CACHED_WORKFLOWS: '0' }), (err: Error) => err.message.startsWith('WEBDATA_MAX_CACHED_WORKFLOWS: must be at least 1'));
  assert.throws(() => readWorkerSettings({ ...base, WEBDATA_FOLLOW_MAX_IDLE_MS: 'soon' }), (err: Error) => err.message.startsWith('WEBDATA_FOLLOW_MAX_IDLE_MS: must be a whole number'));
});

test('worker start line: the heap limit a thread, and the --max-old-space-size that set it (the last one wins)', () => {
  const MiB = 1024 * 1024;
  assert.equal(describeHeapLimit(4144 * MiB, [], undefined), 'heap limit 4144 MiB a thread (V8 default; set --max-old-space-size in NODE_OPTIONS)');
  assert.equal(describeHeapLimit(432 * MiB, [], '--max-old-space-size=384'), 'heap limit 432 MiB a thread (--max-old-space-size=384)');
  assert.equal(describeHeapLimit(560 * MiB, ['--max-old-space-size=384', '--max_old_space_size=512'], '--max-old-space-size=256'), 'heap limit 560 MiB a thread (--max_old_space_size=512)');
  assert.match(describeHeapLimit(), /^heap limit \d+ MiB a thread \(/);
});

test('worker settings: WEBDATA_ALLOW_PRIVATE_ADDRESSES read as the client reads it; empty is off, not a stop', () => {
  const base = { WEBDATA_API_URL: 'http://127.0.0.1:3002', WEBDATA_API_KEY: 'wd-secret-key-123' };
  for (const off of [undefined, '', '0', 'false']) assert.equal(readWorkerSettings({ ...base, WEBDATA_ALLOW_PRIVATE_ADDRESSES: off }).allowPrivateAddresses, false, String(off));
  assert.equal(readWorkerSettings({ ...base, WEBDATA_ALLOW_PRIVATE_ADDRESSES: 'true' }).allowPrivateAddresses, true);
  assert.deepEqual(readWorkerSettings({ ...base, WEBDATA_ALLOW_PRIVATE_ADDRESSES: '127.0.0.1:3003, Crawler.Internal' }).allowPrivateAddresses, ['127.0.0.1:3003', 'crawler.internal']);
  assert.throws(() => readWorkerSettings({ ...base, WEBDATA_ALLOW_PRIVATE_ADDRESSES: 'http://10.0.0.1/' }), (err: Error) => err instanceof WorkerSettingsError
    && err.problems.length === 1
    && err.problems[0] === 'WEBDATA_ALLOW_PRIVATE_ADDRESSES: "http://10.0.0.1/" is not a host or host:port: must be 0 (off) or a comma-separated list of host or host:port (IPv6 in brackets), e.g. 127.0.0.1:3003,crawler.internal:8080');
});

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startTestTemporal } from '../helpers/temporal.js';
import { createSmokeActivities } from '../fixtures/smoke-activities.js';
import { smokeWorkflow } from '../fixtures/smoke-workflows.js';

let env: TestWorkflowEnvironment;
let http: Server;
let url: string;

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('smoke', () => {
  before(async () => {
    env = await startTestTemporal();
    http = createServer((req, res) => res.end(`hello ${req.headers['user-agent']}`));
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/`;
  });

  after(async () => {
    await env?.teardown();
    await new Promise<void>((r) => http?.close(() => r()));
  });

  /** Command lines of running processes, read from /proc. */
  function processCommandLines(): string[] {
    return readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .map((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
        } catch {
          return '';
        }
      });
  }

  test('a real `temporal server start-dev` process serves the test environment', async () => {
    assert.ok(processCommandLines().some((cmd) => / server start-dev /.test(cmd)), 'no temporal server start-dev process');
    const info = await env.connection.workflowService.getSystemInfo({});
    assert.ok(info.serverVersion, 'server answered without a version');
    const attrs = await env.connection.operatorService.listSearchAttributes({ namespace: env.namespace ?? 'default' });
    for (const name of ['WebdataStage', 'WebdataTargetHost', 'WebdataPages', 'WebdataCredits', 'WebdataOutcome', 'WebdataTenant']) {
      assert.ok(name in attrs.customAttributes, `search attribute ${name} not registered`);
    }
  });

  test('a worker runs a workflow that calls a real activity', async () => {
    const worker = await Worker.create({
      connection: env.nativeConnection,
      namespace: env.namespace,
      taskQueue: 'smoke',
      workflowsPath: fileURLToPath(new URL('../fixtures/smoke-workflows.ts', import.meta.url)),
      activities: createSmokeActivities({ userAgent: 'smoke-test' }),
    });
    const result = await worker.runUntil(
      env.client.workflow.execute(smokeWorkflow, { args: [url], taskQueue: 'smoke', workflowId: `smoke-${Date.now()}` }),
    );
    assert.equal(result, '200 hello smoke-test');
  });
});

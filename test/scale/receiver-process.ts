// The webhook receiver as its own process, as `webdata webhooks` runs it (startWebhookServer on
// a Temporal client), plus what the scale test needs to check it from outside: every decision is
// appended to a JSON Lines file, and signals that failed after the answer are counted there too.
//   node --conditions=webdata-source --import tsx test/scale/receiver-process.ts
// Environment: TEMPORAL_ADDRESS, WEBDATA_WEBHOOK_SECRET, SCALE_RECEIVER_LOG (the JSONL file).
// Prints "receiver: listening on <url>" when ready; SIGTERM closes it.
import { appendFileSync } from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import { startWebhookServer, type WebhookDecision } from '../../src/webhooks/index.js';

export interface ReceiverRecord {
  at: number;
  outcome: WebhookDecision['outcome'] | 'late_failure';
  status?: number;
  reason: string;
  workflowId?: string;
  jobId?: string;
  type?: string;
}

const address = process.env.TEMPORAL_ADDRESS;
const secret = process.env.WEBDATA_WEBHOOK_SECRET;
const logFile = process.env.SCALE_RECEIVER_LOG;
if (!address || !secret || !logFile) {
  console.error('receiver: TEMPORAL_ADDRESS, WEBDATA_WEBHOOK_SECRET and SCALE_RECEIVER_LOG are required');
  process.exit(2);
}

// Decisions are buffered and written every 200 ms: one write per delivery would make the file,
// not the receiver, the bottleneck of the load test.
let pending: string[] = [];
const flush = () => {
  if (pending.length === 0) return;
  appendFileSync(logFile, pending.join(''));
  pending = [];
};
const record = (r: ReceiverRecord) => { pending.push(`${JSON.stringify(r)}\n`); };
const timer = setInterval(flush, 200);

const connection = await Connection.connect({ address });
const client = new Client({ connection, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' });
const server = await startWebhookServer({
  client,
  secret,
  port: 0,
  host: '127.0.0.1',
  onDecision: (d) => record({ at: Date.now(), outcome: d.outcome, status: d.status, reason: d.reason, workflowId: d.workflowId, jobId: d.jobId, type: d.type }),
  log: (line) => {
    if (/failed late|still in flight/.test(line)) record({ at: Date.now(), outcome: 'late_failure', reason: line });
  },
});
console.log(`receiver: listening on ${server.url}`);

const stop = async () => {
  // Signals of deliveries answered 202 are still in flight: wait for them (a busy Temporal
  // server can take seconds per signal) before closing the connection they travel on.
  await server.close(60_000);
  await connection.close().catch(() => undefined);
  clearInterval(timer);
  flush();
  process.exit(0);
};
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());

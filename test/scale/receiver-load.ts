// The webhook receiver under load: signed deliveries of job events to workflows that are really
// waiting (pipelines parked on a zero budget), with duplicates and forged ones mixed in, sent as
// fast as the receiver answers them (a fixed number in flight). The counts come from the
// receiver's own decision log, so they are exact: every delivery is answered after its decision.
import { readFileSync } from 'node:fs';
import { Pool } from 'undici';
import { signWebhookBody, SIGNATURE_HEADER } from '../../packages/service/src/webhooks/index.js';
import { peakRss, sampleProcess } from '../../bench/lib/proc-sampler.js';
import { seededRandom } from '../chaos/harness.js';
import type { ReceiverRecord } from './receiver-process.js';

export interface ReceiverLoadResult {
  deliveries: number;
  unique: number;
  duplicates: number;
  forged: number;
  seconds: number;
  perSecond: number;
  signalled: number;
  duplicatesDropped: number;
  forgedRefused: number;
  otherOutcomes: number;
  lateFailures: number;
  /** The receiver's log lines of those late failures (the signal's error). */
  lateReasons: string[];
  /** Answers per HTTP status. */
  statuses: Record<number, number>;
  peakRssKb: number;
}

export interface ReceiverLoadOptions {
  url: string;
  pid: number;
  logFile: string;
  secret: string;
  /** Workflows the unique deliveries are spread over (round-robin). */
  workflowIds: string[];
  deliveries: number;
  inFlight?: number;
  seed: number;
  /** Closes the receiver so its log is complete (it flushes on SIGTERM). */
  stopReceiver: () => Promise<void>;
}

export async function loadReceiver(options: ReceiverLoadOptions): Promise<ReceiverLoadResult> {
  const rand = seededRandom(options.seed);
  const duplicates = Math.round(options.deliveries * 0.10);
  const forged = Math.round(options.deliveries * 0.05);
  const unique = options.deliveries - duplicates - forged;
  interface Delivery { body: string; signature: string }
  const originals: Delivery[] = [];
  for (let i = 0; i < unique; i++) {
    const workflowId = options.workflowIds[i % options.workflowIds.length];
    const body = JSON.stringify({
      success: true, type: i % 2 === 0 ? 'crawl.completed' : 'batch_scrape.completed', id: `bench-job-${i}`,
      webhookId: `bench-delivery-${options.seed}-${i}`, data: [], metadata: { workflowId },
    });
    originals.push({ body, signature: signWebhookBody(body, options.secret) });
  }
  const all: Delivery[] = [...originals];
  // Duplicates: the same bytes and signature again (a redelivery), of distinct originals.
  const picked = new Set<number>();
  while (picked.size < duplicates) picked.add(Math.floor(rand() * unique));
  for (const i of picked) all.push(originals[i]);
  // Forged: a well-formed delivery to a real workflow, signed with another secret.
  for (let i = 0; i < forged; i++) {
    const body = JSON.stringify({
      success: true, type: 'crawl.completed', id: `forged-job-${i}`, webhookId: `forged-${options.seed}-${i}`,
      data: [], metadata: { workflowId: options.workflowIds[i % options.workflowIds.length] },
    });
    all.push({ body, signature: signWebhookBody(body, 'not-the-team-secret-00000') });
  }
  // Shuffled (Fisher-Yates, seeded), so duplicates and forgeries arrive among the originals.
  for (let i = all.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [all[i], all[j]] = [all[j], all[i]];
  }

  const url = new URL(options.url);
  const pool = new Pool(url.origin, { connections: options.inFlight ?? 32, pipelining: 1 });
  const sampler = sampleProcess(options.pid, 200);
  const statuses: Record<number, number> = {};
  let next = 0;
  const t0 = Date.now();
  const sender = async () => {
    for (;;) {
      const i = next++;
      if (i >= all.length) return;
      const d = all[i];
      const res = await pool.request({
        method: 'POST', path: url.pathname, body: d.body,
        headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: d.signature },
      });
      await res.body.dump();
      statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: options.inFlight ?? 32 }, () => sender()));
  const seconds = (Date.now() - t0) / 1000;
  const t1 = Date.now();
  await pool.close();
  await options.stopReceiver();
  const samples = sampler.stop();

  const records = readFileSync(options.logFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as ReceiverRecord)
    .filter((r) => r.at >= t0);
  const ours = (r: ReceiverRecord) => r.jobId?.startsWith('bench-job-') === true;
  // Late failures of this load's signals (their line names the workflow); a fleet run's signal
  // still on its way when the load began is not this load's.
  const late = records.filter((r) => r.outcome === 'late_failure'
    && (r.reason.includes('still in flight') || options.workflowIds.some((id) => r.reason.includes(`signal to ${id} `))));
  return {
    deliveries: all.length, unique, duplicates, forged, seconds,
    perSecond: all.length / seconds,
    signalled: records.filter((r) => ours(r) && r.outcome === 'signalled').length,
    duplicatesDropped: records.filter((r) => ours(r) && r.outcome === 'ignored' && r.reason.startsWith('duplicate')).length,
    forgedRefused: records.filter((r) => r.outcome === 'rejected' && r.status === 401).length,
    otherOutcomes: records.filter((r) => r.outcome !== 'late_failure' && !(ours(r) && r.outcome === 'signalled')
      && !(ours(r) && r.outcome === 'ignored' && r.reason.startsWith('duplicate')) && !(r.outcome === 'rejected' && r.status === 401)).length,
    lateFailures: late.length,
    lateReasons: late.map((r) => r.reason),
    statuses,
    peakRssKb: peakRss(samples, t0, t1 + 1),
  };
}

// Workflow history and worker memory of a 10,000-page crawl + collect (the reference's default
// crawl `limit`) next to a 1,000-page one, in one run. The dev server suggests continue-as-new
// after a low number of events (`limit.historyCount.suggestContinueAsNew`), so the chain of
// runs really happens; the worker runs as a child process whose VmRSS/VmHWM is sampled from
// /proc. Documents stream to the store: the worker's growth over its idle size should not
// follow the page count. Prints tables, never pass/fail.
//
//   node --import tsx bench/history-10k.ts [--pages=10000] [--small-pages=1000] [--suggest-can=50]
//   (or BENCH_PAGES, BENCH_SMALL_PAGES, BENCH_SUGGEST_CAN; BENCH_TIMEOUT_S bounds the whole run)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebDataClient } from '../packages/client/src/client.js';
import { startCountingService, diff } from './lib/counting-service.js';
import { intOption, runBench, timeoutMs, type Closers } from './lib/harness.js';
import { historyChain, type ChainHistory } from './lib/history.js';
import { pipelineCrawl } from './lib/pipeline-run.js';
import { peakRss, sampleProcess, type MemorySample } from './lib/proc-sampler.js';
import { bytes, fixed, int, seconds } from './lib/stats.js';
import { printTable } from './lib/table.js';
import { startBenchTemporal } from './lib/temporal.js';
import { spawnWorker } from './lib/worker-process.js';
import { allowPrivateHosts } from '../test/helpers/private-hosts.js';

/** Temporal's defaults (server dynamic config), for the comparison in the table notes. */
const TEMPORAL_LIMITS = { events: 51_200, bytes: 50 * 1024 * 1024, payload: 2 * 1024 * 1024 };

interface SizeResult {
  limit: number;
  documents: number;
  status: string;
  wallMs: number;
  requests: number;
  bytesOut: number;
  byRoute: Record<string, number>;
  history: ChainHistory;
  /** The result's own count of continue-as-new hand-overs. */
  continuedAsNew: number;
  idleKb: number;
  waitPeakKb: number;
  collectPeakKb: number;
  hwmStartKb: number;
  hwmKb: number;
  collectMs: number;
}

export async function history10k(closers: Closers, log: (line: string) => void, sizes: number[], suggestCan: number): Promise<void> {
  const biggest = Math.max(...sizes);
  const sitePages = Math.ceil(biggest * 1.2) + 20;
  log(`demo site of ${sitePages} content pages; crawls of ${sizes.join(' and ')} pages; continue-as-new suggested after ${suggestCan} events`);
  const svc = await startCountingService({ pages: sitePages });
  closers.add('service', () => svc.close());
  const temporal = await startBenchTemporal({
    webhookSecret: svc.webhookSecret,
    extraArgs: ['--dynamic-config-value', `limit.historyCount.suggestContinueAsNew=${suggestCan}`],
    log,
  });
  closers.add('temporal', () => temporal.close());
  // Runs crawl the demo site and name the receiver, both on 127.0.0.1: allowed by host:port.
  allowPrivateHosts(svc.siteUrl, temporal.webhook.url);
  const dir = mkdtempSync(join(tmpdir(), 'webdata-bench-'));
  closers.add('store folder', () => rmSync(dir, { recursive: true, force: true }));
  const api = new WebDataClient({ apiKey: svc.apiKey, baseUrl: svc.url });
  closers.add('api client', () => api.close());
  const url = `${svc.siteUrl}/`;

  const results: SizeResult[] = [];
  for (const limit of sizes) {
    // A fresh worker per size, warmed by a tiny run, so "idle" already holds the workflow sandbox.
    const taskQueue = `bench-${limit}-${Date.now()}`;
    const worker = await spawnWorker({
      temporalAddress: temporal.address,
      namespace: temporal.namespace,
      taskQueue,
      apiUrl: svc.url,
      apiKey: svc.apiKey,
      store: join(dir, `worker-${limit}`),
      bundlePath: temporal.bundlePath,
    });
    try {
      await pipelineCrawl(temporal.client, { url, limit: 20, taskQueue, webhookUrl: temporal.webhook.url });
      await new Promise((r) => setTimeout(r, 2000));
      const sampler = sampleProcess(worker.pid, 200);
      const before = svc.snapshot();
      const t0 = Date.now();
      log(`${limit} pages: started`);
      const out = await pipelineCrawl(temporal.client, { url, limit, taskQueue, webhookUrl: temporal.webhook.url });
      const samples = sampler.stop();
      const traffic = diff(svc.snapshot(), before);
      const knewAt = svc.firstFinishedAnswer(out.jobId) ?? Number.NaN;
      const history = await historyChain(temporal.client, out.workflowId, out.firstRunId);
      log(`${limit} pages: ${out.documents} stored in ${seconds(out.endedAt - t0)} s, ${history.runs.length} runs`);
      results.push({
        limit,
        documents: out.documents,
        status: out.status,
        wallMs: out.endedAt - t0,
        requests: traffic.requests,
        bytesOut: traffic.bytesOut,
        byRoute: traffic.byRoute,
        history,
        continuedAsNew: out.continuedAsNew,
        ...memory(samples, t0, knewAt),
        collectMs: out.endedAt - knewAt,
      });
    } finally {
      await worker.stop();
    }
  }
  report(results, suggestCan);
}

function memory(samples: MemorySample[], t0: number, knewAt: number) {
  return {
    idleKb: samples[0]?.rssKb ?? Number.NaN,
    waitPeakKb: peakRss(samples, t0, knewAt),
    collectPeakKb: peakRss(samples, knewAt),
    hwmStartKb: samples[0]?.hwmKb ?? Number.NaN,
    hwmKb: samples.at(-1)?.hwmKb ?? Number.NaN,
  };
}

function report(results: SizeResult[], suggestCan: number): void {
  const mib = (kb: number) => bytes(kb * 1024);
  printTable(
    `Pipeline history through continue-as-new (dev server: limit.historyCount.suggestContinueAsNew=${suggestCan}; one run per size)`,
    ['pages', 'stored', 'result', 'wall s', 'runs in chain', 'events', 'events / 1k pages', 'most events in one run', 'history bytes', 'bytes / 1k pages', 'largest payload', 'carried by'],
    results.map((r) => {
      const k = r.documents / 1000;
      return [
        int(r.limit),
        int(r.documents),
        r.status,
        seconds(r.wallMs, 1),
        `${r.history.runs.length} (${r.history.runs.filter((x) => x.suggested).length} told to continue)`,
        int(r.history.events),
        fixed(r.history.events / k),
        int(Math.max(...r.history.runs.map((x) => x.events))),
        bytes(r.history.bytes),
        bytes(r.history.bytes / k),
        bytes(r.history.largest.bytes),
        r.history.largest.event,
      ];
    }),
    [
      '',
      `Temporal's default limits per run: ${int(TEMPORAL_LIMITS.events)} events, ${bytes(TEMPORAL_LIMITS.bytes)} of history, ${bytes(TEMPORAL_LIMITS.payload)} per payload.`,
      'History bytes: protobuf encoding of fetchHistory(), summed over the chain.',
    ],
  );

  printTable(
    'Worker process memory (child process, /proc/<pid>/status sampled every 200 ms)',
    ['pages', 'requests', 'downloaded', 'activity retries', 'RSS idle', 'peak RSS while waiting', 'peak RSS while collecting', 'VmHWM before → after', 'growth over idle', 'collect s'],
    results.map((r) => [
      int(r.limit),
      int(r.requests),
      bytes(r.bytesOut),
      retriesOf(r.history),
      mib(r.idleKb),
      mib(r.waitPeakKb),
      mib(r.collectPeakKb),
      `${mib(r.hwmStartKb)} → ${mib(r.hwmKb)}`,
      mib(Math.max(r.waitPeakKb, r.collectPeakKb) - r.idleKb),
      seconds(r.collectMs, 1),
    ]),
    [
      '',
      'Idle: the worker after a 20-page warm-up run, before the measured run. VmHWM is the kernel\'s lifetime peak',
      '(it includes start-up and the warm-up run; a rise from before to after happened during the measured run).',
      'Activity retries: attempts after the first in the run\'s history, by type; a follower retried resumes from the',
      'last heartbeat the server recorded, so the pages since are downloaded again (the store keeps each once).',
      ...results.map((r) => `Requests, ${int(r.limit)} pages: ${Object.entries(r.byRoute).sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `${k} ${n}`).join(', ')}.`),
      ...results.flatMap((r) => r.history.retries.map((x) => `Retry, ${int(r.limit)} pages: ${x.type} attempt ${x.attempt} after: ${x.cause}`)),
      ...(results.length > 1
        ? [`Growth over idle, ${int(results.at(-1)?.limit ?? 0)} vs ${int(results[0].limit)} pages: ${ratioOf(results)} for ${pagesRatio(results)} the pages.`]
        : []),
    ],
  );
}

function retriesOf(history: ChainHistory): string {
  if (history.retries.length === 0) return '0';
  const byType = new Map<string, number>();
  for (const r of history.retries) byType.set(r.type, (byType.get(r.type) ?? 0) + 1);
  return `${history.retries.length} (${[...byType].map(([t, n]) => `${t} ${n}`).join(', ')})`;
}

function pagesRatio(results: SizeResult[]): string {
  return `${((results.at(-1)?.limit ?? 0) / results[0].limit).toFixed(0)}x`;
}

function ratioOf(results: SizeResult[]): string {
  const g = (r: SizeResult) => Math.max(r.waitPeakKb, r.collectPeakKb) - r.idleKb;
  const first = g(results[0]);
  const last = g(results[results.length - 1]);
  return first > 0 ? `${(last / first).toFixed(2)}x` : '—';
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const pages = intOption('pages', 'BENCH_PAGES', 10_000);
  const small = intOption('small-pages', 'BENCH_SMALL_PAGES', 1000);
  const suggestCan = intOption('suggest-can', 'BENCH_SUGGEST_CAN', 50);
  const sizes = small < pages ? [small, pages] : [pages];
  await runBench('history-10k', timeoutMs(1500), (closers, log) => history10k(closers, log, sizes, suggestCan));
}

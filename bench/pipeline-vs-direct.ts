// A crawl + collect of N pages (default 1,000) four ways against the same local service and
// demo site, side by side in one run: the Temporal pipeline (with webhooks, and polling only),
// the Firecrawl SDK's crawl() waiter, and a hand-written loop over WebDataClient. Requests and
// bytes are counted inside the service (see lib/counting-service.ts). Prints medians and
// ratios, never pass/fail, and the goals next to them (pipeline overhead <= 2x the hand
// loop's, pipeline wall <= 0.9x the SDK waiter's). When the open-source server's build is cached
// (../shared/firecrawl-oss/), the same three clients also crawl a smaller site through it.
//
//   node --import tsx bench/pipeline-vs-direct.ts [--pages=1000] [--runs=3] [--oss-pages=50]
//   (or BENCH_PAGES, BENCH_RUNS, BENCH_OSS_PAGES (0: no OSS variant); BENCH_TIMEOUT_S bounds the whole run)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebDataClient } from '../packages/client/src/client.js';
import { FilesystemStore } from '../packages/storage/src/index.js';
import { startCountingService, diff, type CountingService } from './lib/counting-service.js';
import { handLoopCrawl, sdkCrawl } from './lib/direct-clients.js';
import { intOption, runBench, timeoutMs, type Closers } from './lib/harness.js';
import { historyChain, type ChainHistory } from './lib/history.js';
import { ossBuild, startOssServer } from './lib/oss-server.js';
import { startDemoSite } from '../packages/service/src/demo-site/index.js';
import { pipelineCrawl } from './lib/pipeline-run.js';
import { bytes, fixed, int, median, medianOf, ratio, seconds } from './lib/stats.js';
import { printTable } from './lib/table.js';
import { startBenchTemporal } from './lib/temporal.js';
import { spawnWorker } from './lib/worker-process.js';
import { allowPrivateHosts } from '../test/helpers/private-hosts.js';

const POLL_SECONDS = 1;

type ClientName = 'pipeline' | 'pipeline-polling' | 'sdk' | 'hand';

const LABELS: Record<ClientName, string> = {
  pipeline: 'Temporal pipeline (webhooks + polling)',
  'pipeline-polling': 'Temporal pipeline (polling only)',
  sdk: 'Firecrawl SDK crawl() waiter',
  hand: 'hand loop over WebDataClient',
};

interface Measured {
  client: ClientName;
  documents: number;
  wallMs: number;
  requests: number;
  bytesOut: number;
  bytesIn: number;
  /** Call → the service created the job. */
  startMs: number;
  /** The job on the service: created → last page scraped. */
  jobMs: number;
  /** The service's last page → its first status answer saying "completed". */
  knewMs: number;
  /** The service's last page → the client call returned with every page. */
  doneMs: number;
  byRoute: Record<string, number>;
  history?: ChainHistory;
}

interface Runner {
  (client: ClientName): Promise<{ jobId: string; documents: number; endedAt: number; history?: () => Promise<ChainHistory> }>;
}

export async function pipelineVsDirect(closers: Closers, log: (line: string) => void, pages: number, runs: number, ossPages = 0): Promise<void> {
  const sitePages = Math.ceil(pages * 1.2) + 20;
  log(`demo site of ${sitePages} content pages, crawl limit ${pages}, ${runs} runs per client`);
  const svc = await startCountingService({ pages: sitePages });
  closers.add('service', () => svc.close());
  const temporal = await startBenchTemporal({ webhookSecret: svc.webhookSecret, log });
  closers.add('temporal', () => temporal.close());
  // Runs crawl the demo site and name the receiver, both on 127.0.0.1: allowed by host:port.
  allowPrivateHosts(svc.siteUrl, temporal.webhook.url);
  const dir = mkdtempSync(join(tmpdir(), 'webdata-bench-'));
  closers.add('store folder', () => rmSync(dir, { recursive: true, force: true }));
  const store = new FilesystemStore({ root: join(dir, 'hand') });
  closers.add('store', () => store.close());
  const api = new WebDataClient({ apiKey: svc.apiKey, baseUrl: svc.url });
  closers.add('api client', () => api.close());
  const taskQueue = `bench-${Date.now()}`;
  const worker = await spawnWorker({
    temporalAddress: temporal.address,
    namespace: temporal.namespace,
    taskQueue,
    apiUrl: svc.url,
    apiKey: svc.apiKey,
    store: join(dir, 'worker'),
    bundlePath: temporal.bundlePath,
  });
  closers.add('worker', () => worker.stop());

  const url = `${svc.siteUrl}/`;
  let n = 0;
  const run: Runner = async (client) => {
    const body = { url, limit: pages };
    if (client === 'hand') return handLoopCrawl(api, store, `hand-${++n}`, body, POLL_SECONDS * 1000);
    if (client === 'sdk') return sdkCrawl(svc.url, svc.apiKey, body, POLL_SECONDS);
    const out = await pipelineCrawl(temporal.client, { url, limit: pages, taskQueue, webhookUrl: client === 'pipeline' ? temporal.webhook.url : undefined });
    return { ...out, history: () => historyChain(temporal.client, out.workflowId, out.firstRunId) };
  };

  log('warm-up (not measured)');
  await handLoopCrawl(api, store, 'warm', { url, limit: 50 }, 200);
  await pipelineCrawl(temporal.client, { url, limit: 50, taskQueue, webhookUrl: temporal.webhook.url });

  const clients: ClientName[] = ['pipeline', 'pipeline-polling', 'sdk', 'hand'];
  const results: Measured[] = [];
  for (let round = 0; round < runs; round++) {
    // Rotate the order so no client always runs first (or last) on a warm machine.
    const order = clients.map((_, i) => clients[(i + round) % clients.length]);
    for (const client of order) {
      const m = await measure(svc, api, client, run);
      log(`run ${round + 1}/${runs} ${client}: ${m.documents} pages in ${seconds(m.wallMs)} s, ${m.requests} requests`);
      results.push(m);
    }
  }
  report(results, pages, runs);
  if (ossPages > 0) await againstOss(closers, log, { temporal, dir, store, pages: ossPages });
}

/**
 * The pipeline (polling only: that server's webhooks are unsigned), the SDK waiter and the hand
 * loop against the open-source server, one run each, crawling the local demo site. That server
 * ignores skip, so the pipeline must fall back to collecting once at the end.
 */
async function againstOss(
  closers: Closers,
  log: (line: string) => void,
  ctx: { temporal: Awaited<ReturnType<typeof startBenchTemporal>>; dir: string; store: FilesystemStore; pages: number },
): Promise<void> {
  const where = ossBuild();
  if ('missing' in where) {
    console.log(`\nAgainst the open-source server: skipped, ${where.missing}.`);
    return;
  }
  log('starting the open-source server (cached build)');
  // That server refuses 127.0.0.1 as a target ("must have a valid top-level domain").
  const site = await startDemoSite({ host: '127.0.0.10', pages: Math.ceil(ctx.pages * 1.2) + 20 });
  closers.add('oss demo site', () => site.close());
  allowPrivateHosts(site.url);
  const oss = await startOssServer(where);
  closers.add('open-source server', () => oss.close());
  const apiKey = 'fc-bench';
  const api = new WebDataClient({ apiKey, baseUrl: oss.url });
  closers.add('oss api client', () => api.close());
  const taskQueue = `bench-oss-${Date.now()}`;
  const worker = await spawnWorker({
    temporalAddress: ctx.temporal.address,
    namespace: ctx.temporal.namespace,
    taskQueue,
    apiUrl: oss.url,
    apiKey,
    store: join(ctx.dir, 'worker-oss'),
    bundlePath: ctx.temporal.bundlePath,
  });
  closers.add('oss worker', () => worker.stop());
  const url = `${site.url}/`;
  const body = { url, limit: ctx.pages };
  const rows: string[][] = [];
  const walls: Partial<Record<ClientName, number>> = {};
  for (const client of ['pipeline-polling', 'sdk', 'hand'] as const) {
    const t0 = Date.now();
    let documents = 0;
    let extra = '';
    try {
      if (client === 'hand') documents = (await handLoopCrawl(api, ctx.store, `oss-hand-${Date.now()}`, body, POLL_SECONDS * 1000)).documents;
      else if (client === 'sdk') documents = (await sdkCrawl(oss.url, apiKey, body, POLL_SECONDS)).documents;
      else {
        const out = await pipelineCrawl(ctx.temporal.client, { url, limit: ctx.pages, taskQueue });
        documents = out.documents;
        const history = await historyChain(ctx.temporal.client, out.workflowId, out.firstRunId);
        const atEnd = out.result.stages.crawl?.notes?.find((n) => /ignores skip/.test(n));
        extra = `${out.status}; ${history.events} events; ${atEnd ? 'fell back: collected at the end' : 'followed while running'}`;
      }
    } catch (err) {
      extra = `failed: ${(err as Error).message.split('\n')[0]}`;
    }
    walls[client] = Date.now() - t0;
    log(`oss ${client}: ${documents} pages in ${seconds(walls[client] as number)} s ${extra}`);
    rows.push([LABELS[client], int(documents), seconds(walls[client] as number), extra]);
  }
  printTable(
    `Against the open-source server: crawl + collect of ${int(ctx.pages)} pages (one run each)`,
    ['client', 'pages stored', 'wall s', 'notes'],
    rows.map((r, i) => [...r.slice(0, 3), i === 0 ? `${r[3]}; wall ${ratio(walls['pipeline-polling'] as number, walls.sdk as number)} the SDK's` : r[3]]),
    ['', 'That server renders every page in Chromium and ignores skip/limit (every status GET returns all documents so far).'],
  );
}

async function measure(svc: CountingService, api: WebDataClient, client: ClientName, run: Runner): Promise<Measured> {
  const before = svc.snapshot();
  const t0 = Date.now();
  const out = await run(client);
  const traffic = diff(svc.snapshot(), before);
  // Read after the snapshot: this request is not counted for the client.
  const status = await api.getCrawlStatus(out.jobId, { limit: 1 });
  const completedAt = typeof status.completedAt === 'string' ? Date.parse(status.completedAt) : Number.NaN;
  const createdAt = typeof status.createdAt === 'string' ? Date.parse(status.createdAt) : Number.NaN;
  const knewAt = svc.firstFinishedAnswer(out.jobId) ?? Number.NaN;
  return {
    client,
    documents: out.documents,
    wallMs: out.endedAt - t0,
    requests: traffic.requests,
    bytesOut: traffic.bytesOut,
    bytesIn: traffic.bytesIn,
    startMs: createdAt - t0,
    jobMs: completedAt - createdAt,
    knewMs: knewAt - completedAt,
    doneMs: out.endedAt - completedAt,
    byRoute: traffic.byRoute,
    history: out.history ? await out.history() : undefined,
  };
}

function report(results: Measured[], pages: number, runs: number): void {
  const clients = [...new Set(results.map((r) => r.client))];
  const of = (c: ClientName) => results.filter((r) => r.client === c);
  const base = of('hand');
  const baseWall = medianOf(base, (r) => r.wallMs);
  const baseReq = medianOf(base, (r) => r.requests);
  const baseBytes = medianOf(base, (r) => r.bytesOut);

  printTable(
    `Crawl + collect of ${int(pages)} pages (medians of ${runs} runs each; ratios against the hand loop)`,
    ['client', 'pages stored', 'wall s', 'wall ×', 'requests', 'requests ×', 'downloaded', 'bytes ×'],
    clients.map((c) => {
      const rs = of(c);
      const wall = medianOf(rs, (r) => r.wallMs);
      const req = medianOf(rs, (r) => r.requests);
      const out = medianOf(rs, (r) => r.bytesOut);
      return [LABELS[c], int(medianOf(rs, (r) => r.documents)), seconds(wall), ratio(wall, baseWall), int(req), ratio(req, baseReq), bytes(out), ratio(out, baseBytes)];
    }),
    [
      '',
      'Requests and bytes are counted in the service (wire bytes of its responses). The crawl limit counts failed',
      'pages too (two pages in reach on the demo site answer errors), so a limit of N stores N − 2 documents.',
    ],
  );

  printTable(
    'Where the wall time goes (medians, seconds)',
    ['client', 'call → job created', 'job: created → last page', 'last page → knew done', 'last page → all pages in hand', 'client overhead (wall − job)'],
    clients.map((c) => {
      const rs = of(c);
      const parts: Array<(r: Measured) => number> = [(r) => r.startMs, (r) => r.jobMs, (r) => r.knewMs, (r) => r.doneMs, (r) => r.wallMs - r.jobMs];
      return [LABELS[c], ...parts.map((f) => seconds(medianOf(rs, f)))];
    }),
    [
      '',
      '"job created", "last page" (completedAt) and "knew done" (the first status answer saying completed) are the service\'s',
      `own times. The hand loop reads status pages back to back while they bring documents and sleeps ${POLL_SECONDS} s when one`,
      `brings none; the SDK polls every ${POLL_SECONDS} s. The pipeline follows the job from its start (an activity that stores each`,
      'status page as it comes, like the hand loop), and polls a one-document status from 1 s backing off to 30 s for progress',
      'and the budget (a webhook wakes it at once); when the follower has stored the tail, the wait ends without another poll.',
    ],
  );

  const overheadOf = (c: ClientName) => medianOf(of(c), (r) => r.wallMs - r.jobMs);
  const sdkWall = medianOf(of('sdk'), (r) => r.wallMs);
  const handOverhead = overheadOf('hand');
  printTable(
    'Goals (issue 14): pipeline overhead <= 2x the hand loop\'s, pipeline wall <= 0.9x the SDK waiter\'s',
    ['client', 'overhead s', 'overhead × hand loop', 'goal <= 2x', 'wall × SDK waiter', 'goal <= 0.9x'],
    (['pipeline', 'pipeline-polling'] as const).filter((c) => of(c).length > 0).map((c) => {
      const over = overheadOf(c);
      const wall = medianOf(of(c), (r) => r.wallMs);
      return [LABELS[c], seconds(over), ratio(over, handOverhead), over <= 2 * handOverhead ? 'met' : 'missed', ratio(wall, sdkWall), wall <= 0.9 * sdkWall ? 'met' : 'missed'];
    }),
  );
  const handWall = medianOf(of('hand'), (r) => r.wallMs);
  if (of('pipeline').length > 0 && of('hand').length > 0) {
    const wall = medianOf(of('pipeline'), (r) => r.wallMs);
    console.log(`target (#27): pipeline wall ≤ 1.05x the hand loop's at ${int(pages)} pages: ${ratio(wall, handWall)} ${wall <= 1.05 * handWall ? 'met' : 'missed'}`);
  }

  const routes = [...new Set(results.flatMap((r) => Object.keys(r.byRoute)))].sort();
  printTable(
    'Requests by route (medians)',
    ['client', ...routes],
    clients.map((c) => [LABELS[c], ...routes.map((k) => int(medianOf(of(c), (r) => r.byRoute[k] ?? 0)))]),
  );

  const hist = clients.filter((c) => of(c)[0]?.history);
  printTable(
    `Pipeline history per run (medians of ${runs}); per 1,000 pages = divided by pages/1,000`,
    ['client', 'runs in chain', 'events', 'events / 1k pages', 'history bytes', 'bytes / 1k pages', 'largest payload', 'carried by'],
    hist.map((c) => {
      const rs = of(c);
      const k = medianOf(rs, (r) => r.documents) / 1000;
      const events = medianOf(rs, (r) => r.history?.events ?? Number.NaN);
      const size = medianOf(rs, (r) => r.history?.bytes ?? Number.NaN);
      const largest = rs.map((r) => r.history?.largest ?? { bytes: 0, event: '—' }).sort((a, b) => b.bytes - a.bytes)[0];
      return [
        LABELS[c],
        int(median(rs.map((r) => r.history?.runs.length ?? Number.NaN))),
        int(events),
        fixed(events / k),
        bytes(size),
        bytes(size / k),
        bytes(largest.bytes),
        largest.event,
      ];
    }),
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const pages = intOption('pages', 'BENCH_PAGES', 1000);
  const runs = intOption('runs', 'BENCH_RUNS', 3);
  const noOss = process.env.BENCH_OSS_PAGES === '0' || process.argv.includes('--oss-pages=0');
  const ossPages = noOss ? 0 : intOption('oss-pages', 'BENCH_OSS_PAGES', 50);
  await runBench('pipeline-vs-direct', timeoutMs(1200), (closers, log) => pipelineVsDirect(closers, log, pages, runs, ossPages));
}

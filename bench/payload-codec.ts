// What payload encryption (WEBDATA_PAYLOAD_KEYS) costs a pipeline run in CPU. One stack (Temporal
// dev server, local service with its demo site, this process's workers and clients), two task
// queues side by side: one worker and client without keys, one with them; rounds alternate a
// plain run and an encrypted run of the same pipeline (map → select → batch scrape of every page
// of the demo site, N pages). Prints, per run:
//   - this process's CPU (process.cpuUsage: the worker, the client and the in-process local
//     service, which scrapes and converts the pages) with keys off and on, and their ratio;
//   - the codec's own CPU: the payloads the encrypted runs' codec saw (client and worker), encoded
//     and decoded again in a loop here, divided by the runs; its share of a plain run's CPU.
//
//   node --conditions=webdata-source --import tsx bench/payload-codec.ts [--pages=80] [--rounds=3]
import { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { startDevStack } from '../src/cli/dev-stack.js';
import { startPipeline } from '../src/client/pipeline.js';
import { EncryptionCodec, FAILURE_CONVERTER_PATH, parsePayloadKeys } from '../src/codec/index.js';
import { createWebDataWorker } from '../src/worker/worker.js';
import type { PipelineInput } from '../src/workflows/input.js';
import { encryptedPipelineWorkflowBundle, pipelineWorkflowBundle } from '../test/helpers/workflow-bundle.js';
import { intOption, runBench, timeoutMs } from './lib/harness.js';
import { bytes, fixed, median, ratio } from './lib/stats.js';
import { printTable } from './lib/table.js';

/** The encryption codec, keeping what it is given (the payloads of the runs measured). */
class RecordingCodec extends EncryptionCodec {
  recording = false;
  readonly encoded: Payload[] = [];
  readonly decoded: Payload[] = [];
  override async encode(payloads: Payload[]): Promise<Payload[]> {
    if (this.recording) this.encoded.push(...payloads);
    return super.encode(payloads);
  }
  override async decode(payloads: Payload[]): Promise<Payload[]> {
    if (this.recording) this.decoded.push(...payloads);
    return super.decode(payloads);
  }
}

const size = (p: Payload) => (p.data?.length ?? 0) + Object.values(p.metadata ?? {}).reduce((n, v) => n + (v?.length ?? 0), 0);
const cpuMs = (used: NodeJS.CpuUsage) => (used.user + used.system) / 1000;

await runBench('payload-codec', timeoutMs(900), async (closers, log) => {
  const pages = intOption('pages', 'CODEC_BENCH_PAGES', 80);
  const rounds = intOption('rounds', 'CODEC_BENCH_ROUNDS', 3);
  // A fixed bench key (32 bytes): the cost does not depend on its value.
  const codec = new RecordingCodec(parsePayloadKeys(`bench=${Buffer.alloc(32, 7).toString('base64')}`));
  const dataConverter = { payloadCodecs: [codec], failureConverterPath: FAILURE_CONVERTER_PATH };
  const stack = await startDevStack({ ui: false, worker: false, sitePages: pages, log });
  closers.add('stack', () => stack.close());
  const { env } = stack.temporal;
  const base = { connection: env.nativeConnection, namespace: stack.temporal.namespace, client: stack.api, store: stack.store, allowPrivateAddresses: stack.privateHosts };
  const plainWorker = await createWebDataWorker({ ...base, taskQueue: 'codec-off', workflowBundlePath: await pipelineWorkflowBundle() });
  const sealedWorker = await createWebDataWorker({ ...base, taskQueue: 'codec-on', workflowBundlePath: await encryptedPipelineWorkflowBundle(), dataConverter });
  for (const [name, w] of [['plain worker', plainWorker], ['encrypting worker', sealedWorker]] as const) {
    const running = w.run();
    closers.add(name, async () => {
      if (w.getState() === 'RUNNING') w.shutdown();
      await running;
    });
  }
  const plainClient = new Client({ connection: env.connection, namespace: stack.temporal.namespace });
  const sealedClient = new Client({ connection: env.connection, namespace: stack.temporal.namespace, dataConverter });
  const input: PipelineInput = { url: `${stack.service.siteUrl}/`, mode: 'batch', polling: { minIntervalMs: 200, maxIntervalMs: 1_000 }, stages: { interact: false } };

  const runOnce = async (client: Client, taskQueue: string, record: boolean) => {
    codec.recording = record;
    const start = process.cpuUsage();
    const result = await (await startPipeline(client, input, { taskQueue })).result();
    const used = cpuMs(process.cpuUsage(start));
    codec.recording = false;
    if (result.status !== 'completed') throw new Error(`a ${taskQueue} run ended ${result.status}`);
    return { cpu: used, docs: result.stages.batch?.documents ?? 0 };
  };
  // One run each first: webpack-free, but the first run of a worker loads its bundle and caches.
  await runOnce(plainClient, 'codec-off', false);
  await runOnce(sealedClient, 'codec-on', false);
  const off: number[] = [];
  const on: number[] = [];
  let docs = 0;
  for (let round = 0; round < rounds; round++) {
    const a = await runOnce(plainClient, 'codec-off', false);
    const b = await runOnce(sealedClient, 'codec-on', true);
    off.push(a.cpu);
    on.push(b.cpu);
    docs = b.docs;
    log(`round ${round + 1}: off ${fixed(a.cpu, 0)} ms, on ${fixed(b.cpu, 0)} ms of CPU`);
  }

  // The codec's own work on those runs' payloads, measured alone (nothing else runs now).
  const sealed = codec.decoded.filter((p) => p.metadata?.encoding && Buffer.from(p.metadata.encoding).toString() === 'binary/encrypted');
  const repeats = 20;
  const start = process.cpuUsage();
  for (let i = 0; i < repeats; i++) {
    await codec.encode(codec.encoded);
    await codec.decode(sealed);
  }
  const codecPerRun = cpuMs(process.cpuUsage(start)) / repeats / rounds;
  const perRun = (n: number) => n / rounds;
  const bytesPerRun = perRun(codec.encoded.reduce((n, p) => n + size(p), 0) + sealed.reduce((n, p) => n + size(p), 0));

  printTable(`Payload encryption: CPU of one pipeline run (${docs} pages, batch mode), median of ${rounds} rounds`, ['', 'keys off', 'keys on', 'on / off'], [
    ['process CPU per run (worker + client + in-process local service)', `${fixed(median(off), 0)} ms`, `${fixed(median(on), 0)} ms`, ratio(median(on), median(off))],
    ['codec CPU per run (encode + decode of its payloads)', '0 ms', `${fixed(codecPerRun, 1)} ms`, `${fixed((100 * codecPerRun) / median(off), 2)}% of a plain run`],
    ['payloads through the codec per run', '-', `${fixed(perRun(codec.encoded.length + sealed.length), 0)} (${bytes(bytesPerRun)})`, ''],
  ], [
    'The local service runs in this process (it scrapes the pages): the process ratio includes its work, which encryption does not change.',
    'The codec row replays the payloads the encrypted runs encoded and decoded (client and worker), alone, so nothing else is counted.',
  ]);
});

// Crawls started directly through the service API and collected by the hand loop
// (direct-clients.ts), all at once, in a process of their own: the client's CPU (parsing status
// pages, writing the store) is then not taken from the service's event loop, as a pipeline's
// worker runs in its own process too.
//
// Input: one JSON line on stdin (HandLoopJob). Output: one JSON line on stdout (HandLoopOutput).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { WebDataClient } from '../../packages/client/src/client.js';
import { FilesystemStore } from '../../packages/storage/src/index.js';
import { handLoopCrawl } from './direct-clients.js';

export interface HandLoopJob {
  apiUrl: string;
  apiKey: string;
  storeRoot: string;
  /** One crawl per URL, run id `${runPrefix}${index}`. */
  urls: string[];
  runPrefix: string;
  limit: number;
  pollMs: number;
}

export interface HandLoopResult {
  runId: string;
  jobId: string;
  documents: number;
  /** Epoch ms the loop had every page stored. */
  endedAt: number;
}

export interface HandLoopOutput {
  runs: HandLoopResult[];
  /** The process's own CPU (user + system) and peak RSS (getrusage), read just before it exits. */
  cpuSeconds: number;
  maxRssKb: number;
}

const SELF = fileURLToPath(import.meta.url);

/** Runs the crawls in a child process. */
export function runHandLoops(job: HandLoopJob): Promise<HandLoopOutput> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--conditions=webdata-source', '--import', 'tsx', SELF], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`hand loop process exited with code ${code}`));
      try {
        resolve(JSON.parse(out.trim().split('\n').pop() ?? '') as HandLoopOutput);
      } catch (err) {
        reject(new Error(`hand loop process: unreadable output (${String(err)})`));
      }
    });
    child.stdin.end(`${JSON.stringify(job)}\n`);
  });
}

async function main(): Promise<void> {
  let input = '';
  for await (const chunk of process.stdin) input += String(chunk);
  const job = JSON.parse(input) as HandLoopJob;
  const api = new WebDataClient({ apiKey: job.apiKey, baseUrl: job.apiUrl });
  const store = new FilesystemStore({ root: job.storeRoot });
  try {
    const runs = await Promise.all(job.urls.map(async (url, i): Promise<HandLoopResult> => {
      const runId = `${job.runPrefix}${i}`;
      const out = await handLoopCrawl(api, store, runId, { url, limit: job.limit }, job.pollMs);
      return { runId, jobId: out.jobId, documents: out.documents, endedAt: out.endedAt };
    }));
    const usage = process.resourceUsage();
    const output: HandLoopOutput = { runs, cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6, maxRssKb: usage.maxRSS };
    process.stdout.write(`${JSON.stringify(output)}\n`);
  } finally {
    await store.close();
    await api.close();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await main();
}

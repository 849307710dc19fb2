// Main-content fidelity (issue 46): the corpus of corpus.ts served over loopback HTTP, each page
// scraped on the local service (in-process) and on the open-source server, with onlyMainContent
// on and off, and compared by the rule of compare.ts with the open-source server as the
// reference. Prints one table per mode (pages, equal, differing per shape) and each differing
// page's reasons. It reports and exits 0; the target (>= 95% equal per shape, both modes) is
// asserted by test/compat/main-content-fidelity.compat.ts in `npm run test:compat`.
//
//   node --conditions=webdata-source --import tsx test/compat/main-content/fidelity.ts [options]
//     --write-manifest   write manifest.json from the generator (after a deliberate corpus change)
//     --out FILE         also write every comparison (and both servers' markdown) as JSON
//     --only SHAPE,...   print the differing pages of these shapes only
//
// The open-source server's answers are cached outside the clone, keyed by its commit and the
// corpus hash: ~/.cache/webdata-temporal/fidelity-<commit>-<corpus hash>.json. With that file a
// run needs no server. Without it: WEBDATA_OSS_URL (a running server, as test:compat sets it),
// else this starts one itself with ../shared/firecrawl-oss/start.sh on free loopback ports with
// USE_GO_MARKDOWN_PARSER=true (the reference's Go converter) and stops it at the end.
//   FIRECRAWL_OSS_DIR, FIRECRAWL_OSS_BUILD   as for scripts/test-compat.mjs
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createServiceApp } from '../../../packages/service/src/app.js';
import { listen } from '../../../packages/service/src/http/server.js';
import { silentLogger } from '../../../packages/service/src/http/logger.js';
import { createHttpScrapeEngine } from '../../../packages/service/src/scrape/index.js';
import { compareMarkdown, type Comparison } from './compare.js';
import { buildManifest, corpusPages, MANIFEST_PATH, readManifest, type CorpusPage, type Shape } from './corpus.js';

/** The open-source server's commit (the fixture's build folder is named after it). */
export const OSS_COMMIT = '0fac8fb';
const SITE_HOST = process.env.WEBDATA_OSS_SITE_HOST ?? '127.0.0.10';
const MODES = ['on', 'off'] as const;
type Mode = (typeof MODES)[number];

interface Answer {
  /** Markdown with the corpus origin replaced by "{origin}"; null when the scrape failed. */
  markdown: string | null;
  error?: string;
}
type Answers = Record<string, Record<Mode, Answer>>;

interface OssCache {
  ossCommit: string;
  corpusHash: string;
  /** What converted the markdown: "go" unless the server's log said it fell back to Turndown. */
  converter: string;
  answers: Answers;
}

const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

function cachePath(corpusHash: string): string {
  return join(homedir(), '.cache', 'webdata-temporal', `fidelity-${OSS_COMMIT}-${corpusHash.slice(0, 16)}.json`);
}

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createNetServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => ok(port));
    });
  });
}

async function serveCorpus(pages: CorpusPage[]): Promise<{ server: Server; origin: string }> {
  const byPath = new Map(pages.map((p) => [p.path, p.html]));
  const server = createHttpServer((req, res) => {
    const html = byPath.get(new URL(req.url ?? '/', 'http://x').pathname);
    res.writeHead(html === undefined ? 404 : 200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html ?? '<html><body><p>Not found</p></body></html>');
  });
  await new Promise<void>((ok) => server.listen(0, SITE_HOST, ok));
  return { server, origin: `http://${SITE_HOST}:${(server.address() as AddressInfo).port}` };
}

async function scrape(api: string, url: string, onlyMainContent: boolean, origin: string): Promise<Answer> {
  let last = '';
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const res = await fetch(`${api}/v2/scrape`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer fidelity-key' },
        body: JSON.stringify({ url, formats: ['markdown'], onlyMainContent, timeout: 120_000 }),
        signal: AbortSignal.timeout(240_000),
      });
      const body = (await res.json()) as { success?: boolean; data?: { markdown?: string }; error?: string };
      if (res.ok && body.data && typeof body.data.markdown === 'string') {
        return { markdown: body.data.markdown.split(origin).join('{origin}') };
      }
      last = `HTTP ${res.status}: ${body.error ?? JSON.stringify(body).slice(0, 200)}`;
    } catch (err) {
      last = String((err as Error).message ?? err);
    }
    await sleep(1_000);
  }
  return { markdown: null, error: last };
}

async function scrapeAll(api: string, pages: CorpusPage[], origin: string, concurrency: number, label: string): Promise<Answers> {
  const jobs = pages.flatMap((p) => MODES.map((mode) => ({ p, mode })));
  const answers: Answers = {};
  let next = 0;
  let done = 0;
  const t0 = Date.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < jobs.length) {
      const { p, mode } = jobs[next++];
      const answer = await scrape(api, origin + p.path, mode === 'on', origin);
      (answers[p.path] ??= {} as Record<Mode, Answer>)[mode] = answer;
      if (++done % 50 === 0) console.log(`fidelity: ${label} ${done}/${jobs.length} scrapes (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
    }
  }));
  return answers;
}

async function startLocal(): Promise<{ url: string; close(): Promise<void> }> {
  const app = createServiceApp({
    teams: [{
      id: 'fidelity', apiKeys: ['fidelity-key'], credits: 1_000_000, rateLimits: {}, concurrency: 8, maxBrowserSessions: 1,
      features: { ignoreRobotsTxt: false, zeroDataRetention: false, searchEnterprise: [] },
    }],
    scrapeEngine: createHttpScrapeEngine({ cache: false }),
    logger: silentLogger,
  });
  const server = await listen(app.listener, { host: '127.0.0.1' });
  return { url: server.url, close: async () => { await Promise.all([server.close(), app.close()]); } };
}

/** Starts the open-source server (Go converter on) on free ports; returns its URL and how to stop it. */
async function startOss(): Promise<{ url: string; run: string; stop(): void }> {
  const candidates = [process.env.FIRECRAWL_OSS_DIR, join(ROOT, '..', 'shared', 'firecrawl-oss'), '/work/shared/firecrawl-oss'].filter((d): d is string => !!d);
  const fixture = candidates.find((d) => existsSync(join(d, 'start.sh')));
  if (!fixture) throw new Error(`the open-source server fixture is not here (looked in ${candidates.join(', ')}); set FIRECRAWL_OSS_DIR`);
  const build = process.env.FIRECRAWL_OSS_BUILD ?? join(homedir(), '.cache', 'webdata-temporal', `firecrawl-oss-${OSS_COMMIT}`);
  if (!existsSync(join(build, '.built'))) execFileSync('bash', [join(fixture, 'build.sh'), build], { stdio: 'inherit' });
  const run = mkdtempSync(join(tmpdir(), 'webdata-fidelity-oss-'));
  const ports = { FC_PORT: await freePort(), FC_WORKER_PORT: await freePort(), FC_PW_PORT: await freePort(), FC_REDIS_PORT: await freePort() };
  // start.sh passes its environment on to the API and the worker: the Go converter is asked for here.
  const env = { ...process.env, ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])), USE_GO_MARKDOWN_PARSER: 'true' };
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    try {
      execFileSync('bash', [join(fixture, 'stop.sh'), run], { stdio: 'inherit' });
    } catch (err) {
      console.error(`fidelity: stop.sh failed: ${(err as Error).message}`);
    }
  };
  const url = `http://127.0.0.1:${ports.FC_PORT}`;
  try {
    try {
      execFileSync('bash', [join(fixture, 'start.sh'), build, run], { stdio: 'inherit', env });
    } catch (err) {
      // start.sh waits 60 s per port; on a busy machine the API takes longer.
      if (!existsSync(join(run, 'api.pid')) || !existsSync(join(run, 'worker.pid'))) throw err;
    }
    for (const deadline = Date.now() + 300_000; ; await sleep(1_000)) {
      try {
        const res = await fetch(`${url}/v2/crawl/active`, { signal: AbortSignal.timeout(5_000) });
        await res.arrayBuffer();
        break;
      } catch {
        if (Date.now() > deadline) throw new Error(`the open-source server did not answer on ${url}; see ${run}`);
      }
    }
  } catch (err) {
    stop();
    throw err;
  }
  return { url, run, stop };
}

/** "go" unless a log of the server says the Go converter was not there (it then uses Turndown). */
function converterFromLogs(run: string): string {
  for (const name of ['worker.log', 'api.log']) {
    const file = join(run, name);
    if (existsSync(file) && /Tried to use Go parser|Error converting HTML to Markdown with Go parser/.test(readFileSync(file, 'utf8'))) return 'turndown (Go converter failed)';
  }
  return 'go';
}

async function ossAnswers(pages: CorpusPage[], corpusHash: string, origin: string, ossUrl: string | undefined): Promise<OssCache> {
  const file = cachePath(corpusHash);
  if (existsSync(file)) {
    const cached = JSON.parse(readFileSync(file, 'utf8')) as OssCache;
    if (cached.corpusHash === corpusHash && pages.every((p) => cached.answers[p.path]?.on && cached.answers[p.path]?.off)) {
      console.log(`fidelity: the open-source server's answers from ${file}`);
      return cached;
    }
  }
  const oss = ossUrl ? { url: ossUrl, run: '', stop: () => undefined } : await startOss();
  const onSignal = () => { oss.stop(); process.exit(130); };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let ok = false;
  try {
    console.log(`fidelity: scraping ${pages.length} pages twice on the open-source server at ${oss.url}`);
    const answers = await scrapeAll(oss.url, pages, origin, 8, 'open-source server');
    const converter = oss.run ? converterFromLogs(oss.run) : 'unknown (server started elsewhere)';
    const result: OssCache = { ossCommit: OSS_COMMIT, corpusHash, converter, answers };
    const failed = Object.values(answers).flatMap((a) => MODES.filter((m) => a[m].markdown === null)).length;
    if (failed === 0) {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, JSON.stringify(result));
      console.log(`fidelity: cached in ${file}`);
    } else {
      console.log(`fidelity: ${failed} scrapes failed on the open-source server; not cached`);
    }
    ok = failed === 0;
    return result;
  } finally {
    // stop.sh reads the PIDs from the run folder: remove it only after (and keep its logs on failure).
    oss.stop();
    if (oss.run && ok) rmSync(oss.run, { recursive: true, force: true });
    else if (oss.run) console.log(`fidelity: the open-source server's logs are in ${oss.run}`);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

export interface PageResult {
  path: string;
  shape: Shape;
  mode: Mode;
  comparison: Comparison | null;
  /** When one side failed to scrape. */
  failure?: string;
}

export function compareAll(pages: CorpusPage[], oss: Answers, local: Answers): PageResult[] {
  return pages.flatMap((p) => MODES.map((mode): PageResult => {
    const a = oss[p.path]?.[mode];
    const b = local[p.path]?.[mode];
    if (!a || a.markdown === null) return { path: p.path, shape: p.shape, mode, comparison: null, failure: `reference failed: ${a?.error ?? 'no answer'}` };
    if (!b || b.markdown === null) return { path: p.path, shape: p.shape, mode, comparison: null, failure: `local failed: ${b?.error ?? 'no answer'}` };
    return { path: p.path, shape: p.shape, mode, comparison: compareMarkdown(a.markdown, b.markdown) };
  }));
}

/** The kind of a reason, for the per-shape summary: its words before the parenthesis. */
const reasonKind = (reason: string): string => reason.replace(/\s*\(.*$/, '');

export function formatTables(results: PageResult[], only?: string[]): string {
  const out: string[] = [];
  const shapes = [...new Set(results.map((r) => r.shape))];
  for (const mode of MODES) {
    out.push('', `onlyMainContent ${mode}`, '', '| shape | pages | equal | differing | why (pages) |', '|---|---:|---:|---:|---|');
    let pages = 0;
    let equal = 0;
    for (const shape of shapes) {
      const rows = results.filter((r) => r.shape === shape && r.mode === mode);
      const eq = rows.filter((r) => r.comparison?.equal).length;
      const kinds = new Map<string, number>();
      for (const r of rows) {
        if (r.comparison?.equal) continue;
        for (const k of r.failure ? ['scrape failed'] : [...new Set(r.comparison?.reasons.map(reasonKind))]) kinds.set(k, (kinds.get(k) ?? 0) + 1);
      }
      const why = [...kinds].sort((x, y) => y[1] - x[1]).map(([k, n]) => `${k} (${n})`).join(', ');
      out.push(`| ${shape} | ${rows.length} | ${eq} | ${rows.length - eq} | ${why} |`);
      pages += rows.length;
      equal += eq;
    }
    out.push(`| **all** | ${pages} | ${equal} | ${pages - equal} | |`);
  }
  out.push('', 'Differing pages:');
  for (const r of results) {
    if (r.comparison?.equal) continue;
    if (only && !only.includes(r.shape)) continue;
    const what = r.failure ?? `ratio ${r.comparison?.ratio.toFixed(3)}; ${r.comparison?.reasons.join('; ')}`;
    out.push(`  ${r.mode.padEnd(3)} ${r.path}: ${what}`);
  }
  return out.join('\n');
}

export interface Fidelity {
  results: PageResult[];
  /** What converted the reference's markdown ("go" when the server's own logs say nothing else). */
  converter: string;
  corpusHash: string;
  oss: Answers;
  local: Answers;
}

/**
 * The whole comparison: the committed corpus served on loopback, scraped by the local service
 * in-process and by the reference (its cached answers, else `ossUrl`, else a server started
 * here with the Go converter).
 */
export async function measureFidelity(ossUrl?: string): Promise<Fidelity> {
  const pages = corpusPages();
  const manifest = buildManifest(pages);
  const committed = readManifest();
  if (committed.corpusHash !== manifest.corpusHash) {
    const changed = manifest.pages.filter((p) => committed.pages.find((q) => q.path === p.path)?.sha256 !== p.sha256).map((p) => p.path);
    throw new Error(`the corpus is not the committed one (hash ${manifest.corpusHash.slice(0, 16)}, manifest ${committed.corpusHash.slice(0, 16)}; changed or new: ${changed.slice(0, 5).join(', ')}${changed.length > 5 ? ' …' : ''}); after a deliberate change run with --write-manifest`);
  }
  console.log(`fidelity: ${pages.length} pages, corpus hash ${manifest.corpusHash.slice(0, 16)}`);
  const site = await serveCorpus(pages);
  const local = await startLocal();
  try {
    const t0 = Date.now();
    const localAnswers = await scrapeAll(local.url, pages, site.origin, 4, 'local service');
    console.log(`fidelity: local service done in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    const oss = await ossAnswers(pages, manifest.corpusHash, site.origin, ossUrl);
    console.log(`fidelity: reference converter: ${oss.converter}`);
    return { results: compareAll(pages, oss.answers, localAnswers), converter: oss.converter, corpusHash: manifest.corpusHash, oss: oss.answers, local: localAnswers };
  } finally {
    await local.close();
    await new Promise<void>((ok) => site.server.close(() => ok()));
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const argValue = (name: string) => {
    const k = args.indexOf(name);
    return k >= 0 ? args[k + 1] : undefined;
  };
  if (args.includes('--write-manifest')) {
    const pages = corpusPages();
    const manifest = buildManifest(pages);
    writeFileSync(MANIFEST_PATH, `${JSON.stringify(manifest, null, 1)}\n`);
    console.log(`fidelity: wrote ${MANIFEST_PATH} (${pages.length} pages, corpus hash ${manifest.corpusHash})`);
    return;
  }
  const fidelity = await measureFidelity(process.env.WEBDATA_OSS_URL);
  console.log(formatTables(fidelity.results, argValue('--only')?.split(',')));
  const outFile = argValue('--out');
  if (outFile) {
    writeFileSync(outFile, JSON.stringify({ ...fidelity }, null, 1));
    console.log(`fidelity: details in ${outFile}`);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err: unknown) => {
    console.error(`fidelity: ${(err as Error).stack ?? String(err)}`);
    process.exit(1);
  });
}

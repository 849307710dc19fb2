// What one append to the folder store costs (issue 27): a pipeline's follower appends each status
// page it reads, so a 100-page run makes about a dozen. Side by side, alternating rounds: the
// store of a git ref ("before", default the parent of the last commit that changed the folder
// store) against the working tree's, each in a fresh folder:
//   - one at a time: 1,000 appends of one small page to one run (what each append costs alone);
//   - at once: 100 runs, 12 appends of 8 pages of 3 KB each (a worker following 100 runs).
// Prints the process CPU per append (every thread: the file operations run in libuv's pool).
//
//   node --conditions=webdata-source --import tsx bench/store-append.ts [--rounds=5] [--before=<git ref>]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DocumentInput, FilesystemStore } from '../packages/storage/src/index.js';
import { intOption, runBench, stringOption, timeoutMs } from './lib/harness.js';
import { fixed, median, ratio } from './lib/stats.js';
import { printTable } from './lib/table.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STORE_SOURCES = ['packages/storage/src/filesystem-store.ts', 'packages/storage/src/fs'];

type StoreClass = new (options: { root: string; maxOpenRuns?: number }) => FilesystemStore;

const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();

/** The folder store of `ref`, its storage sources exported to a temporary folder (they import only Node's own modules). */
async function storeAt(ref: string): Promise<{ sha: string; Store: StoreClass; cleanup: () => void }> {
  const sha = git('rev-parse', '--short=12', ref);
  const dir = mkdtempSync(join(tmpdir(), `webdata-bench-store-${sha}-`));
  const tar = execFileSync('git', ['archive', sha, 'packages/storage/src'], { cwd: ROOT, maxBuffer: 1 << 28 });
  execFileSync('tar', ['-x', '-C', dir], { input: tar });
  const module = await import(join(dir, 'packages/storage/src/filesystem-store.ts')) as { FilesystemStore: StoreClass };
  return { sha, Store: module.FilesystemStore, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

const page = (run: number, n: number, body: string): DocumentInput => ({
  kind: 'crawl',
  url: `https://site-${run}.test/page-${n}`,
  markdown: body,
  metadata: { sourceURL: `https://site-${run}.test/page-${n}`, statusCode: 200 },
});

/** Process CPU per append, in µs, of `work` on a fresh store. */
async function cpuPerAppend(Store: StoreClass, appends: number, work: (store: FilesystemStore) => Promise<void>): Promise<number> {
  const root = mkdtempSync(join(tmpdir(), 'webdata-bench-store-'));
  try {
    const store = new Store({ root, maxOpenRuns: 1000 });
    const start = process.cpuUsage();
    await work(store);
    const used = process.cpuUsage(start);
    return (used.user + used.system) / appends;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const CASES = [
  {
    name: 'one at a time: 1,000 appends of 1 page to one run',
    appends: 1000,
    work: async (store: FilesystemStore) => {
      for (let n = 0; n < 1000; n++) await store.appendDocuments('run', 'job', [page(0, n, 'text')]);
    },
  },
  {
    name: 'at once: 100 runs × 12 appends of 8 pages of 3 KB',
    appends: 1200,
    work: async (store: FilesystemStore) => {
      const body = 'x'.repeat(3000);
      await Promise.all(Array.from({ length: 100 }, async (_, run) => {
        for (let a = 0; a < 12; a++) await store.appendDocuments(`run-${run}`, 'job', Array.from({ length: 8 }, (_, i) => page(run, a * 8 + i, body)));
      }));
    },
  },
];

await runBench('store-append', timeoutMs(600), async (closers, log) => {
  const rounds = intOption('rounds', 'STORE_APPEND_ROUNDS', 5);
  const beforeRef = stringOption('before', 'STORE_APPEND_BEFORE') ?? `${git('log', '-1', '--format=%H', 'HEAD', '--', ...STORE_SOURCES)}^`;
  const before = await storeAt(beforeRef);
  closers.add('the exported store', before.cleanup);
  const { FilesystemStore: Now } = await import('../packages/storage/src/filesystem-store.js');
  const sides = [{ label: `before (${before.sha})`, Store: before.Store }, { label: 'now (working tree)', Store: Now as StoreClass }];
  const rows: string[][] = [];
  for (const { name, appends, work } of CASES) {
    const samples = sides.map(() => [] as number[]);
    // A warm-up per side (JIT, the file system's caches), then alternating rounds.
    for (const side of sides) await cpuPerAppend(side.Store, appends, work);
    for (let round = 0; round < rounds; round++) {
      for (const [i, side] of sides.entries()) samples[i].push(await cpuPerAppend(side.Store, appends, work));
      log(`${name}, round ${round + 1} of ${rounds}`);
    }
    const [b, n] = samples.map(median);
    rows.push([name, fixed(b, 0), fixed(n, 0), ratio(n, b)]);
  }
  printTable(
    `Folder store: process CPU per append (µs, median of ${rounds} rounds)`,
    ['case', sides[0].label, sides[1].label, 'now / before'],
    rows,
    ['Process CPU (user + system, every thread) over the appends, each case on a fresh folder; the rounds alternate the two stores.'],
  );
});

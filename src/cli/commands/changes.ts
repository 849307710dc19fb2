// `webdata changes <series>`: what the latest completed run of a series (or --run) found changed
// since the run before it, read from the store: counts, URLs per kind and, with --diff, the
// unified diff of each changed page; a service monitor's series also has its model's judgments.
import { parseArgs } from 'node:util';
import { REMOVED_LIST, seriesRuns, type SeriesRunEntry } from '../../activities/index.js';
import type { ChangeCounts } from '../../activities/types.js';
import { CliError, oneLine, UsageError } from '../errors.js';
import { openCliStore } from '../store-arg.js';

const PAGE_KINDS = new Set(['crawl', 'batch']);
const USAGE = 'usage: webdata changes <series> [--run RUN-ID] [--diff] [--json] [--store DIR|postgres://...]';

interface RunChanges {
  series: string;
  runId: string;
  previousRunId: string | null;
  completedAt?: string;
  counts: ChangeCounts;
  new: string[];
  changed: Array<{ url: string; diff?: string }>;
  removed: string[];
  /** A service monitor's model judgments of new and changed pages (absent when none was made). */
  judgments?: Array<{ url: string; meaningful: boolean; confidence: string; reason: string }>;
}

export async function changesCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { run: { type: 'string' }, diff: { type: 'boolean' }, json: { type: 'boolean' }, store: { type: 'string' } },
  });
  const series = positionals[0];
  if (!series || positionals.length > 1) throw new UsageError(`one series is required (the schedule id, or input.changes.series): ${USAGE}`);
  const where = openCliStore(values.store);
  const { store } = where;
  try {
    let runs: SeriesRunEntry[];
    let changes: RunChanges;
    try {
      runs = await seriesRuns(store, series);
      const entry = values.run ? runs.find((r) => r.runId === values.run) : runs.at(-1);
      if (!entry && !values.run) {
        throw new CliError(`series ${series} has no completed run in ${where.label}: check the name (a schedule's series is its id) and that this is the store the worker wrote`);
      }
      changes = await readRunChanges(series, values.run ?? (entry as SeriesRunEntry).runId, entry, runs);
    } catch (err) {
      if (err instanceof CliError) throw err;
      throw where.readFailure(err);
    }
    if (values.json) {
      console.log(JSON.stringify({ ...changes, changed: changes.changed.map((c) => (values.diff ? c : { url: c.url })) }, null, 2));
      return 0;
    }
    const c = changes.counts;
    console.log(`series ${series}: ${runs.length} completed run${runs.length === 1 ? '' : 's'} in ${where.label}`);
    console.log(`run ${changes.runId}${changes.completedAt ? ` (completed ${changes.completedAt})` : ''} since ${changes.previousRunId ?? '(first run: every page is new)'}`);
    console.log(`  ${c.new} new · ${c.changed} changed · ${c.unchanged} unchanged · ${c.removed} removed`);
    const section = (title: string, urls: string[]) => {
      if (urls.length === 0) return;
      console.log(`${title}:`);
      for (const url of urls) console.log(`  ${url}`);
    };
    section('changed', changes.changed.map((x) => x.url));
    section('new', changes.new);
    section('removed', changes.removed);
    if (changes.judgments) {
      console.log('judged (by the monitor\'s model):');
      for (const j of changes.judgments) console.log(`  ${j.url}: ${j.meaningful ? 'meaningful' : 'not meaningful'} (${j.confidence}): ${j.reason}`);
    }
    if (values.diff) {
      for (const { url, diff } of changes.changed) console.log(`\n${diff ?? `(no diff for ${url}: the previous copy is no longer in the store)\n`}`);
    }
    return 0;
  } finally {
    await store.close().catch(() => {});
  }

  async function readRunChanges(name: string, runId: string, entry: SeriesRunEntry | undefined, all: SeriesRunEntry[]): Promise<RunChanges> {
    const counts: ChangeCounts = { new: 0, changed: 0, unchanged: 0, removed: 0 };
    const out: RunChanges = { series: name, runId, previousRunId: entry?.previousRunId ?? null, counts, new: [], changed: [], removed: [] };
    if (entry) out.completedAt = entry.completedAt;
    let tracked = false;
    for await (const doc of store.readDocuments(runId)) {
      if (!PAGE_KINDS.has(doc.kind) || typeof doc.change !== 'string') continue;
      tracked = true;
      if (doc.change === 'removed') continue; // a page now 404/410: in the removed list below
      if (doc.change === 'unchanged') {
        counts.unchanged += 1;
        continue;
      }
      judged(doc.url, doc.judgment);
      if (doc.change === 'changed') {
        counts.changed += 1;
        out.changed.push({ url: doc.url, ...(typeof doc.diff === 'string' ? { diff: doc.diff } : {}) });
      } else {
        counts.new += 1;
        out.new.push(doc.url);
      }
    }
    if (!tracked) throw new CliError(`run ${runId} has no change records in ${where.label}: it is not a run of series ${name} (runs: ${all.map((r) => r.runId).join(', ') || 'none'})`);
    for await (const link of store.readLinks(runId, REMOVED_LIST)) out.removed.push(link.url);
    counts.removed = out.removed.length;
    // Pages arrive in crawl order, which varies run to run: print them sorted.
    out.new.sort();
    out.removed.sort();
    out.changed.sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
    out.judgments?.sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
    return out;

    // Records written from a monitor check carry the service's judgment as it was sent; a record
    // of another shape is not a judgment and is left out rather than printed half.
    function judged(url: string, value: unknown): void {
      if (typeof value !== 'object' || value === null) return;
      const { meaningful, confidence, reason } = value as Record<string, unknown>;
      if (typeof meaningful !== 'boolean' || typeof confidence !== 'string' || typeof reason !== 'string') return;
      (out.judgments ??= []).push({ url, meaningful, confidence, reason: oneLine(reason) });
    }
  }
}

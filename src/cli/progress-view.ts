// Live progress of a run in the terminal: one line per stage with counts and credits, redrawn
// in place on a TTY and printed on change otherwise.
import type { PipelineProgress } from '../workflows/definitions.js';
import { STAGES } from '../workflows/input.js';
import { noProgressText, stalledText } from '../workflows/progress-rule.js';

const WIDTH = 20;

function bar(done: number, total: number): string {
  if (total <= 0) return ' '.repeat(WIDTH);
  const filled = Math.min(WIDTH, Math.round((done / total) * WIDTH));
  return '█'.repeat(filled) + '░'.repeat(WIDTH - filled);
}

/** `now`: the time the idle figures are counted to (a job's "no progress for N min"). */
export function renderProgress(p: PipelineProgress, now = Date.now()): string[] {
  const lines = [`stage ${p.stage} · ${p.status} · ${p.documents} documents · ${p.credits.spent}${p.credits.budget === null ? '' : `/${p.credits.budget}`} credits`];
  for (const stage of STAGES) {
    const r = p.stages[stage];
    if (!r) continue;
    // map/select produce URL lists (full bar once done). Jobs fill documents towards their
    // total: the running job's own total (pages it knows of so far), else the URLs it was given.
    // A job whose total is not known yet shows an empty bar, never a full one.
    const listStage = stage === 'map' || stage === 'select';
    const ended = r.status !== 'running' && r.status !== 'pending';
    const known = r.total ?? r.urls;
    const docs = r.documents ?? 0;
    const total = listStage ? r.urls ?? 0 : known !== undefined ? Math.max(known, docs) : ended ? docs : 0;
    const done = listStage ? (r.status === 'completed' ? total : 0) : docs;
    const counts = listStage ? String(total) : known !== undefined ? `${done}/${total}` : String(done);
    lines.push(`  ${stage.padEnd(9)} ${bar(done, total)} ${r.status.padEnd(9)} ${counts.padStart(11)}  ${String(r.credits).padStart(6)} cr  ${r.reason ?? ''}`.trimEnd());
    const still = noProgressText(r, now) ?? stalledText(r);
    if (still) lines.push(`  ${''.padEnd(9)} ${still}`);
  }
  return lines;
}

export class ProgressPrinter {
  private lastLines = 0;
  private last = '';
  constructor(private readonly out: NodeJS.WriteStream = process.stdout) {}

  update(p: PipelineProgress): void {
    const lines = renderProgress(p);
    const text = lines.join('\n');
    if (text === this.last) return;
    this.last = text;
    if (this.out.isTTY) {
      if (this.lastLines > 0) this.out.write(`\x1b[${this.lastLines}A\x1b[0J`);
      this.out.write(`${text}\n`);
      this.lastLines = lines.length;
    } else {
      this.out.write(`${text}\n`);
    }
  }
}

// Live progress of a run in the terminal: one line per stage with counts and credits, redrawn
// in place on a TTY and printed on change otherwise.
import type { PipelineProgress } from '../workflows/definitions.js';
import { STAGES } from '../workflows/input.js';

const WIDTH = 20;

function bar(done: number, total: number): string {
  if (total <= 0) return ' '.repeat(WIDTH);
  const filled = Math.min(WIDTH, Math.round((done / total) * WIDTH));
  return '█'.repeat(filled) + '░'.repeat(WIDTH - filled);
}

export function renderProgress(p: PipelineProgress): string[] {
  const lines = [`stage ${p.stage} · ${p.status} · ${p.documents} documents · ${p.credits.spent}${p.credits.budget === null ? '' : `/${p.credits.budget}`} credits`];
  for (const stage of STAGES) {
    const r = p.stages[stage];
    if (!r) continue;
    // map/select produce URL lists (full bar once done); jobs fill documents towards their URL count.
    const listStage = stage === 'map' || stage === 'select';
    const total = listStage ? r.urls ?? 0 : Math.max(r.urls ?? 0, r.documents ?? 0);
    const done = listStage ? (r.status === 'completed' ? total : 0) : r.documents ?? 0;
    const counts = !listStage && r.urls !== undefined ? `${done}/${total}` : String(listStage ? total : done);
    lines.push(`  ${stage.padEnd(9)} ${bar(done, total)} ${r.status.padEnd(9)} ${counts.padStart(11)}  ${String(r.credits).padStart(6)} cr  ${r.reason ?? ''}`.trimEnd());
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

import type { PipelineResult, RecoveredJob } from '../workflows/state.js';
import { STAGES } from '../workflows/input.js';
import { stalledText } from '../workflows/progress-rule.js';

/** A human summary of a finished run. */
export function formatSummary(result: PipelineResult, extra: { workflowId: string; uiUrl?: string; namespace?: string }): string {
  const lines = [
    `run ${extra.workflowId}: ${result.status} · ${result.documents} documents · ${result.credits.spent}${result.credits.budget === null ? '' : ` of ${result.credits.budget}`} credits`,
  ];
  for (const stage of STAGES) {
    const r = result.stages[stage];
    if (!r) continue;
    const bits = [r.status, r.documents !== undefined ? `${r.documents} docs` : '', r.urls !== undefined ? `${r.urls} urls` : '', `${r.credits} credits`, r.skipped?.robots ? `${r.skipped.robots} skipped (robots.txt)` : '', r.jobId ? `job ${r.jobId}` : '', r.reason ?? ''];
    lines.push(`  ${stage.padEnd(9)} ${bits.filter(Boolean).join(' · ')}`);
    for (const out of r.outputs ?? []) lines.push(`  ${''.padEnd(9)} ${out.url} → ${out.preview.replace(/\s+/g, ' ')}`);
    if (r.support) lines.push(`  ${''.padEnd(9)} support (${r.support.confidence}, ${r.support.applied ? 'applied' : 'not applied'}): ${r.support.answer}`);
    if (r.notAvailable?.length) lines.push(`  ${''.padEnd(9)} not available on this service: ${r.notAvailable.join(', ')}`);
    for (const note of r.notes ?? []) lines.push(`  ${''.padEnd(9)} ${note}`);
    const stalled = stalledText(r);
    if (stalled) lines.push(`  ${''.padEnd(9)} ${stalled}`);
    if (r.recovered) lines.push(`  ${''.padEnd(9)} ${recoveredLine(r.recovered)}`);
  }
  for (const event of result.credits.events) lines.push(`  budget: ${event}`);
  for (const line of result.credits.estimated ?? []) lines.push(`  estimated: ${line}`);
  if (extra.uiUrl) lines.push(`Temporal UI: ${extra.uiUrl}/namespaces/${extra.namespace ?? 'default'}/workflows/${encodeURIComponent(extra.workflowId)}`);
  return lines.join('\n');
}

/** A lost job and the job that got what it had not stored. */
export function recoveredLine(r: RecoveredJob): string {
  const credits = r.creditsEstimated ? `~${r.lostCredits} credits, estimated` : `${r.lostCredits} credits`;
  const kept = `job ${r.lostJob} ${r.why ?? 'lost'} after ${r.lostPages} pages (${credits})`;
  return r.newJob ? `recovered: ${kept}; job ${r.newJob} stored ${r.pages} more` : `recovered: ${kept}; nothing was left to get`;
}

// select: apply include/exclude patterns and the limit to the mapped URLs, in the store.
import { lists } from '../activities.js';
import type { PipelineRuntime } from '../runtime.js';
import type { StageOutcome } from './types.js';

export async function runSelect(pipeline: PipelineRuntime): Promise<StageOutcome> {
  const { config, runId, lists: stored } = pipeline.state;
  if (!stored.mapped) return { kind: 'skipped', reason: 'needs the map stage' };
  const select = config.select ?? {};
  const result = await lists.selectUrls.executeWithOptions(
    { summary: `select ${describe(select)}` },
    [{ runId, fromList: stored.mapped, toList: 'selected', include: select.include, exclude: select.exclude, limit: select.limit }],
  );
  const report = pipeline.report('select');
  report.urls = result.count;
  report.ref = result.ref;
  pipeline.state.lists.selected = 'selected';
  pipeline.state.selectedCount = result.count;
  pipeline.state.pathPatterns = result.pathPatterns;
  if (result.count === 0) return { kind: 'failed', reason: 'no mapped URL matched the selection' };
  return { kind: 'ok' };
}

function describe(select: { include?: string[]; exclude?: string[]; limit?: number }): string {
  const parts = [
    select.include?.length ? `include ${select.include.join(',')}` : '',
    select.exclude?.length ? `exclude ${select.exclude.join(',')}` : '',
    select.limit ? `limit ${select.limit}` : '',
  ].filter(Boolean);
  return parts.join(' ') || 'all';
}

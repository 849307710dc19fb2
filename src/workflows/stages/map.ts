// map: list the site's URLs into the store; the workflow keeps the count and a reference.
import { DEFAULT_MAP_LIMIT, mapCredits } from 'webdata-contract/rules';
import { lists } from '../activities.js';
import { awaitCredits } from '../budget.js';
import { spend } from '../credit-guard.js';
import { hostOf, type PipelineRuntime } from '../runtime.js';
import type { StageOutcome } from './types.js';

export const MAP_CREDITS = mapCredits();

export async function runMap(pipeline: PipelineRuntime): Promise<StageOutcome> {
  const { config, runId } = pipeline.state;
  if (!(await awaitCredits(pipeline, MAP_CREDITS))) return { kind: 'skipped', reason: 'budget: no credits left for map' };
  const body = { url: config.url, ...config.map };
  // The selection's search text orders the map (the service ranks by relevance).
  if (config.select?.search && body.search === undefined) body.search = config.select.search;
  // A run of a series compares with the last run: the site's sitemap as it is now, not cached.
  if (config.changes && body.ignoreCache === undefined) body.ignoreCache = true;
  const limit = body.limit ?? DEFAULT_MAP_LIMIT;
  const result = await lists.mapToStore.executeWithOptions(
    { summary: `map ${hostOf(config.url)} limit ${limit}` },
    [{ runId, list: 'mapped', body }],
  );
  const report = pipeline.report('map');
  report.urls = result.count;
  report.credits = result.creditsUsed;
  report.ref = result.ref;
  spend(pipeline.state.credits, 'map', result.creditsUsed);
  pipeline.state.lists.mapped = 'mapped';
  if (result.count === 0) return { kind: 'failed', reason: 'map returned no URLs' };
  return { kind: 'ok' };
}

// POST /v2/map. Priced per call (billing/prices.ts), recorded as activity `map`.
// `timeout` (ms) bounds the work: map then answers with what it found so far (always
// at least the start URL) instead of failing. `location` is accepted and has no effect
// here: the local service has no proxies.
import { mapRequestSchema } from 'webdata-contract';
import type { MapResponse } from 'webdata-contract';
import type { DroppedResponse, RouteRequest, RouteResponse, Router } from '../core/routes.js';
import { requireCredits } from '../billing/guard.js';
import { mapCredits } from '../billing/prices.js';
import { newJobId } from '../http/ids.js';
import { imitatesOss, ossMapLinks } from '../imitate/firecrawl-oss.js';
import { parseBody } from '../http/validate.js';
import type { JobsRuntime } from '../jobs/runtime.js';
import { mapSite } from './mapper.js';
import { MapCache } from './map-cache.js';

export function registerMapRoute(router: Router, jobsRuntime: JobsRuntime): void {
  const cache = new MapCache(() => jobsRuntime.ctx.now());
  router.add('POST', '/v2/map', (req) => map(jobsRuntime, cache, req), { group: 'map' });
}

async function map(jobsRuntime: JobsRuntime, cache: MapCache, req: RouteRequest): Promise<RouteResponse<MapResponse> | DroppedResponse> {
  const { origin: _origin, integration: _integration, ...options } = parseBody(mapRequestSchema, req.body);
  const credits = mapCredits();
  requireCredits(jobsRuntime.ctx.ledger, req.team, credits);
  const id = newJobId(jobsRuntime.ctx.now());
  jobsRuntime.ctx.activity.record({ id, teamId: req.team.id, endpoint: 'map', createdAt: jobsRuntime.ctx.now(), target: options.url });
  const signal = options.timeout !== undefined ? AbortSignal.any([req.signal, AbortSignal.timeout(options.timeout)]) : req.signal;
  const links = await mapSite(jobsRuntime, cache, options, signal);
  // The caller went away (req.signal, not the `timeout` option): mapSite answers what it found
  // on abort, but nobody can receive it, so it is not billed; the caller's retry pays once.
  if (req.signal.aborted) return { body: null, dropConnection: true };
  jobsRuntime.ctx.ledger.charge({ teamId: req.team.id, apiKey: req.apiKey, credits, reason: 'map', jobId: id });
  // The open-source server's links: only `url`, without trailing slashes.
  return { body: { success: true, links: imitatesOss(jobsRuntime.ctx.config) ? ossMapLinks(links) : links } };
}

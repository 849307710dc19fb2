// Route table with `:param` segments. Static segments win over params, so
// "/v2/crawl/active" is matched before "/v2/crawl/:id".
import type { RouteHandler, RouteOptions, Router } from '../core/routes.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface RouteEntry {
  method: HttpMethod;
  /** As registered, e.g. "/v2/crawl/:id"; with the method it names the route for faults. */
  pattern: string;
  handler: RouteHandler;
  options: RouteOptions;
  segments: Array<{ param: string } | { literal: string }>;
}

export type RouteMatch =
  | { kind: 'found'; route: RouteEntry; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allowed: HttpMethod[] }
  | { kind: 'not_found' };

/** A path segment that is not valid percent-encoding. */
export class MalformedPathError extends Error {}

function splitPath(path: string): string[] {
  return path.split('/').filter((s) => s.length > 0);
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new MalformedPathError(`malformed path segment "${segment}"`);
  }
}

export class RouteTable implements Router {
  private readonly routes: RouteEntry[] = [];

  add(method: HttpMethod, pattern: string, handler: RouteHandler, options: RouteOptions): void {
    const segments = splitPath(pattern).map((s) => (s.startsWith(':') ? { param: s.slice(1) } : { literal: s }));
    const duplicate = this.routes.find((r) => r.method === method && sameShape(r.segments, segments));
    if (duplicate) throw new Error(`route ${method} ${pattern} is already registered as ${duplicate.pattern}`);
    this.routes.push({ method, pattern, handler, options, segments });
  }

  list(): ReadonlyArray<RouteEntry> {
    return this.routes;
  }

  match(method: string, path: string): RouteMatch {
    const parts = splitPath(path);
    const candidates: Array<{ route: RouteEntry; params: Record<string, string> }> = [];
    for (const route of this.routes) {
      const params = matchSegments(route.segments, parts);
      if (params) candidates.push({ route, params });
    }
    if (candidates.length === 0) return { kind: 'not_found' };
    const forMethod = candidates.filter((c) => c.route.method === method);
    if (forMethod.length === 0) {
      return { kind: 'method_not_allowed', allowed: [...new Set(candidates.map((c) => c.route.method))] };
    }
    forMethod.sort((a, b) => specificity(b.route) - specificity(a.route) || compareShapes(a.route, b.route));
    const best = forMethod[0];
    return { kind: 'found', route: best.route, params: best.params };
  }
}

function matchSegments(segments: RouteEntry['segments'], parts: string[]): Record<string, string> | undefined {
  if (segments.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i];
    if ('literal' in seg) {
      if (seg.literal !== parts[i]) return undefined;
    } else {
      params[seg.param] = decodeSegment(parts[i]);
    }
  }
  return params;
}

function specificity(route: RouteEntry): number {
  return route.segments.filter((s) => 'literal' in s).length;
}

/** Earlier literal segments win when two routes have the same number of literals. */
function compareShapes(a: RouteEntry, b: RouteEntry): number {
  for (let i = 0; i < a.segments.length; i++) {
    const aLit = 'literal' in a.segments[i];
    const bLit = 'literal' in b.segments[i];
    if (aLit !== bLit) return aLit ? -1 : 1;
  }
  return 0;
}

function sameShape(a: RouteEntry['segments'], b: RouteEntry['segments']): boolean {
  return a.length === b.length && a.every((s, i) => {
    const t = b[i];
    return 'literal' in s ? 'literal' in t && t.literal === s.literal : 'param' in t;
  });
}

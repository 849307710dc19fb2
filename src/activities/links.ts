// Link lists: map results, the selection and "what the crawl missed" stay in the store; the
// workflow gets counts, a reference and a small sample.
import { compilePattern, type MapRequest } from 'webdata-contract';
import type { LinkEntry } from 'webdata-storage';
import { refOf } from 'webdata-storage';
import { currentScope, whileHeartbeating } from './context.js';
import type { ActivityDeps } from './deps.js';
import { mapFailures } from './failures.js';
import { urlKey } from 'webdata-contract';
import type { DiffInput, MapToStoreResult, SelectInput, SelectResult } from './types.js';

const SAMPLE = 5;
const CHUNK = 1000;

/** Pathname (plus query) of a URL, what include/exclude patterns are tested against. */
function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

/** Shortest path prefixes ("/docs/", "/blog/") that cover the URLs, as anchored regexes. */
export function coveringPatterns(urls: Iterable<string>, max = 20): string[] {
  const firstSegments = new Set<string>();
  for (const url of urls) {
    const segment = pathOf(url).split('/')[1];
    firstSegments.add(segment ? `^/${segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(/|$)` : '^/$');
    if (firstSegments.size > max) return [];
  }
  return [...firstSegments];
}

/** A cheap heartbeat for long loops: at most one per second (the SDK throttles further). */
function pulse(): () => void {
  const scope = currentScope();
  let last = 0;
  return () => {
    const now = Date.now();
    if (now - last < 1000) return;
    last = now;
    scope.heartbeat();
  };
}

export function createLinkActivities(deps: ActivityDeps) {
  const { client, store } = deps;

  async function appendInChunks(runId: string, list: string, links: LinkEntry[]): Promise<void> {
    for (let i = 0; i < links.length; i += CHUNK) await store.appendLinks(runId, list, links.slice(i, i + CHUNK));
  }

  return {
    /** POST /v2/map into the store list `list` (default "mapped"). */
    async mapToStore(input: { runId: string; list?: string; body: MapRequest }): Promise<MapToStoreResult> {
      const scope = currentScope();
      const list = input.list ?? 'mapped';
      return mapFailures(async () => {
        const res = await whileHeartbeating(scope, (signal) => client.map(input.body, { signal }), deps.heartbeatEveryMs);
        const links = res.links.filter((l) => typeof l?.url === 'string').map((l) => ({ url: l.url, title: l.title, description: l.description }));
        await appendInChunks(input.runId, list, links);
        const creditsUsed = typeof res.creditsUsed === 'number' ? res.creditsUsed : 1;
        return { count: links.length, creditsUsed, ref: refOf(store, input.runId, { list }), sample: links.slice(0, SAMPLE).map((l) => l.url) };
      });
    },

    /** Include/exclude regexes (on the pathname; excludes win) and a limit, in the list's order. */
    async selectUrls(input: SelectInput): Promise<SelectResult> {
      const beat = pulse();
      // Linear time (RE2): a tenant's pattern cannot hold the worker over a large list.
      const include = (input.include ?? []).map(compilePattern);
      const exclude = (input.exclude ?? []).map(compilePattern);
      const limit = input.limit ?? Number.POSITIVE_INFINITY;
      const picked: LinkEntry[] = [];
      const seen = new Set<string>();
      for await (const link of store.readLinks(input.runId, input.fromList)) {
        beat();
        if (picked.length >= limit) break;
        // `/docs` and `/docs/` (or `#top`) are one page: select it once.
        const key = urlKey(link.url);
        if (seen.has(key)) continue;
        seen.add(key);
        const path = pathOf(link.url);
        if (exclude.some((r) => r.test(path))) continue;
        if (include.length > 0 && !include.some((r) => r.test(path))) continue;
        picked.push(link);
      }
      await appendInChunks(input.runId, input.toList, picked);
      const urls = picked.map((l) => l.url);
      return { count: picked.length, ref: refOf(store, input.runId, { list: input.toList }), sample: urls.slice(0, SAMPLE), pathPatterns: coveringPatterns(urls) };
    },

    /** URLs of `fromList` with no stored document from `coveredByJobs`, into `toList`. */
    async diffUrls(input: DiffInput): Promise<{ count: number; ref: ReturnType<typeof refOf>; sample: string[] }> {
      const beat = pulse();
      const covered = new Set<string>();
      // Compared as keys: map links come without trailing slash (root as `http://host:port`),
      // a crawl returns `http://host:port/`; both name the same page.
      const norm = urlKey;
      for (const jobId of input.coveredByJobs) {
        for await (const doc of store.readDocuments(input.runId, { jobId })) {
          beat();
          covered.add(norm(doc.url));
          const finalUrl = (doc.metadata as { url?: string }).url;
          if (finalUrl) covered.add(norm(finalUrl));
        }
      }
      const missing: LinkEntry[] = [];
      for await (const link of store.readLinks(input.runId, input.fromList)) {
        beat();
        if (!covered.has(norm(link.url))) missing.push(link);
      }
      await appendInChunks(input.runId, input.toList, missing);
      return { count: missing.length, ref: refOf(store, input.runId, { list: input.toList }), sample: missing.slice(0, SAMPLE).map((l) => l.url) };
    },

    /** Stored page URLs matching a regex (first `limit`, insertion order). */
    async findStoredPages(input: { runId: string; match: string; limit: number }): Promise<string[]> {
      const beat = pulse();
      const re = compilePattern(input.match);
      const urls = new Set<string>();
      for await (const doc of store.readDocuments(input.runId)) {
        beat();
        if (doc.kind === 'interact' || doc.kind === 'scrape') continue;
        const status = (doc.metadata as { statusCode?: number }).statusCode;
        if (status !== undefined && status >= 400) continue;
        if (re.test(doc.url)) urls.add(doc.url);
        if (urls.size >= input.limit) break;
      }
      return [...urls];
    },
  };
}

/*
 * 400 Bad Request: a request that failed validation (it never became a job), or a scrape
 * the engine refused (a format that needs a model). The request comes from `context`
 * (request, body, params or payload) or a JSON object in the question; the endpoint from
 * context.endpoint/path or the request's fields. Each schema issue is repaired where the
 * intent is clear: a misspelt key or value is replaced by the closest valid one, numbers
 * and booleans sent as strings are converted, out-of-range numbers are clamped, a URL
 * without scheme gets http://, and unknown keys are removed (null in fixParameters). The
 * repaired request is validated again with the same schema: that is the probe.
 */
import type { z } from 'zod';
import {
  batchScrapeRequestSchema, browserCreateRequestSchema, crawlParamsPreviewRequestSchema, crawlRequestSchema, formatIssues,
  interactRequestSchema, mapRequestSchema, scrapeOptionsShape, scrapeRequestSchema, searchRequestSchema,
} from 'webdata-contract';
import { applyFix, closest, describeJob, note, pathOf, scrapeOptionFix, scrapeOptionsOf } from '../facts.js';
import { probeScrape } from '../probes/scrape-probe.js';
import type { Case, Cause, Finding } from '../types.js';

type Endpoint = 'scrape' | 'crawl' | 'crawl_preview' | 'batch_scrape' | 'map' | 'search' | 'browser' | 'interact';

const SCHEMAS: Record<Endpoint, z.ZodType> = {
  scrape: scrapeRequestSchema, crawl: crawlRequestSchema, crawl_preview: crawlParamsPreviewRequestSchema,
  batch_scrape: batchScrapeRequestSchema, map: mapRequestSchema, search: searchRequestSchema,
  browser: browserCreateRequestSchema, interact: interactRequestSchema,
};

const MODEL_FORMATS = new Set(['json', 'summary', 'changeTracking']);

function endpointOf(text: string): Endpoint | undefined {
  const t = text.toLowerCase();
  if (/params-preview/.test(t)) return 'crawl_preview';
  if (/batch/.test(t)) return 'batch_scrape';
  if (/interact/.test(t)) return 'interact';
  if (/crawl/.test(t)) return 'crawl';
  if (/\bmap\b/.test(t)) return 'map';
  if (/search/.test(t)) return 'search';
  if (/browser/.test(t)) return 'browser';
  if (/scrape/.test(t)) return 'scrape';
  return undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function jsonIn(text: string): Record<string, unknown> | undefined {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return undefined;
  try {
    const value = JSON.parse(text.slice(start, end + 1)) as unknown;
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The failed request and its endpoint, from the context or the question. */
export function failedRequest(c: Case): { endpoint: Endpoint; body: Record<string, unknown> } | undefined {
  const ctx = c.context ?? {};
  const body = [ctx.request, ctx.body, ctx.params, ctx.payload, ctx.requestBody].find(isObject) ?? jsonIn(c.question);
  if (!body) return undefined;
  const named = [ctx.endpoint, ctx.path, ctx.route, ctx.url && typeof ctx.url === 'string' && ctx.url.includes('/v2/') ? ctx.url : undefined]
    .find((v): v is string => typeof v === 'string');
  const inferred: Endpoint = Array.isArray(body.urls) ? 'batch_scrape'
    : typeof body.query === 'string' ? 'search'
    : typeof body.code === 'string' || (typeof body.prompt === 'string' && !body.url) ? 'interact'
    : ['includePaths', 'excludePaths', 'maxDiscoveryDepth', 'crawlEntireDomain', 'scrapeOptions', 'allowSubdomains', 'sitemap', 'limit'].some((k) => k in body) ? 'crawl'
    : 'scrape';
  return { endpoint: (named && endpointOf(named)) || endpointOf(c.question) || inferred, body };
}

function getAt(root: unknown, path: PropertyKey[]): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<PropertyKey, unknown> | undefined)?.[key], root);
}

function setAt(root: Record<string, unknown>, path: PropertyKey[], value: unknown): void {
  const parent = getAt(root, path.slice(0, -1)) as Record<PropertyKey, unknown> | undefined;
  if (!parent) return;
  const key = path[path.length - 1];
  if (value === undefined) delete parent[key];
  else parent[key] = value;
}

interface Issue {
  code: string;
  path: PropertyKey[];
  message: string;
  keys?: string[];
  values?: unknown[];
  expected?: string;
  minimum?: number | bigint;
  maximum?: number | bigint;
  format?: string;
  errors?: Issue[][];
  options?: unknown[];
}

function keysAt(schema: z.ZodType, path: PropertyKey[]): string[] {
  if (path.length === 0) return Object.keys((schema as unknown as { shape?: Record<string, unknown> }).shape ?? {});
  if (path.length === 1 && path[0] === 'scrapeOptions') return Object.keys(scrapeOptionsShape);
  return [];
}

/** Repairs one issue in `fixed`; returns what was done, or undefined when it cannot tell. */
function repair(schema: z.ZodType, fixed: Record<string, unknown>, issue: Issue): string | undefined {
  const path = issue.path;
  const value = getAt(fixed, path);
  const where = path.length ? path.join('.') : 'the body';
  switch (issue.code) {
    case 'unrecognized_keys': {
      const parent = getAt(fixed, path) as Record<string, unknown> | undefined;
      if (!parent) return undefined;
      const valid = keysAt(schema, path);
      const done: string[] = [];
      for (const key of issue.keys ?? []) {
        const to = closest(key, valid);
        if (to && parent[to] === undefined) {
          parent[to] = parent[key];
          done.push(`renamed ${[...path, key].join('.')} to ${to}`);
        } else {
          done.push(`removed the unknown field ${[...path, key].join('.')}`);
        }
        delete parent[key];
      }
      return done.join('; ');
    }
    case 'invalid_value':
    case 'invalid_union': {
      const nested = issue.errors?.flat() ?? [];
      const names = (issue.values ?? nested.find((e) => e.values)?.values ?? []).filter((v): v is string => typeof v === 'string');
      if (typeof value === 'string' && names.length) {
        const to = closest(value.split('@')[0], names);
        if (!to) return undefined;
        setAt(fixed, path, to);
        return `${where}: "${value}" → "${to}"`;
      }
      const types = (nested.find((e) => e.options)?.options ?? []).filter((v): v is string => typeof v === 'string');
      if (isObject(value) && typeof value.type === 'string' && types.length) {
        const to = closest(value.type, types);
        if (!to) return undefined;
        setAt(fixed, [...path, 'type'], to);
        return `${where}.type: "${value.type}" → "${to}"`;
      }
      return undefined;
    }
    case 'invalid_type': {
      if (issue.expected === 'number' && typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) {
        setAt(fixed, path, Number(value));
        return `${where}: the string "${value}" → the number ${Number(value)}`;
      }
      if (issue.expected === 'boolean' && (value === 'true' || value === 'false')) {
        setAt(fixed, path, value === 'true');
        return `${where}: the string "${value}" → ${value}`;
      }
      if (issue.expected === 'array' && value !== undefined && !Array.isArray(value)) {
        setAt(fixed, path, [value]);
        return `${where}: wrapped in a list`;
      }
      return undefined;
    }
    case 'too_small':
    case 'too_big': {
      const bound = Number(issue.code === 'too_small' ? issue.minimum : issue.maximum);
      if (typeof value !== 'number' || !Number.isFinite(bound)) return undefined;
      setAt(fixed, path, bound);
      return `${where}: ${value} → ${bound} (the ${issue.code === 'too_small' ? 'minimum' : 'maximum'})`;
    }
    case 'invalid_format':
      if (issue.format === 'url' && typeof value === 'string' && /^[\w.-]+\.[a-z]{2,}|^localhost|^\d+\.\d+\.\d+\.\d+/i.test(value) && !value.includes('://')) {
        setAt(fixed, path, `http://${value}`);
        return `${where}: added the scheme (http://${value})`;
      }
      return undefined;
    default:
      return undefined;
  }
}

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

function schemaFinding(c: Case, endpoint: Endpoint, body: Record<string, unknown>): Finding | undefined {
  const schema = SCHEMAS[endpoint];
  const first = schema.safeParse(body);
  if (first.success) return undefined;
  const problems = formatIssues(first.error).map((i) => `${i.path || '(body)'}: ${i.message}`);
  const fixed = clone(body);
  const done: string[] = [];
  const unfixed: string[] = [];
  // Repairs can reveal further issues (a renamed key with a bad value): a few passes.
  for (let pass = 0; pass < 3; pass++) {
    const parsed = schema.safeParse(fixed);
    if (parsed.success) break;
    let progress = false;
    for (const issue of parsed.error.issues as unknown as Issue[]) {
      const what = repair(schema, fixed, issue);
      if (what) {
        done.push(what);
        progress = true;
      } else if (pass === 0) {
        unfixed.push(`${issue.path.join('.') || '(body)'}: ${issue.message}`);
      }
    }
    if (!progress) break;
  }
  const fix: Record<string, unknown> = {};
  for (const key of new Set([...Object.keys(body), ...Object.keys(fixed)])) {
    if (JSON.stringify(body[key]) !== JSON.stringify(fixed[key])) fix[key] = key in fixed ? fixed[key] : null;
  }
  const check = schema.safeParse(applyFix(body, fix));
  const path = endpoint === 'batch_scrape' ? '/v2/batch/scrape' : endpoint === 'crawl_preview' ? '/v2/crawl/params-preview' : `/v2/${endpoint}`;
  note(c, `validated the ${path} request again with the fix`);
  return {
    cause: 'invalid_request',
    confidence: check.success ? 'high' : Object.keys(fix).length ? 'medium' : 'low',
    answer: `The ${path} request was refused with 400 because ${problems.slice(0, 3).join('; ')}${problems.length > 3 ? ` (and ${problems.length - 3} more)` : ''}. ${done.length ? `Fix: ${done.join('; ')}.` : 'No repair is certain enough to propose.'}${unfixed.length && !check.success ? ` Still to fix by hand: ${unfixed.slice(0, 2).join('; ')}.` : ''}`,
    fixParameters: Object.keys(fix).length ? fix : null,
    validation: {
      tested: true,
      result: check.success ? 'success' : 'failure',
      evidence: check.success ? `the corrected request passes the ${path} schema` : `the corrected request still fails: ${formatIssues(check.error).map((i) => `${i.path}: ${i.message}`).slice(0, 2).join('; ')}`,
    },
    feedback: null,
  };
}

/**
 * A format that needs a model the service lacks: the engine's own 400 MODEL_REQUIRED
 * (changeTracking), or 503 AI_NOT_CONFIGURED (json, summary) from the model formats.
 */
const MODEL_MISSING = new Set(['MODEL_REQUIRED', 'AI_NOT_CONFIGURED']);

export const invalidRequestCause: Cause = {
  id: 'invalid_request',
  hint: /\b400\b|bad request|invalid|validation|unrecognized|unknown (?:key|field|format)|schema/i,
  applies(c) {
    const req = failedRequest(c);
    if (req && !SCHEMAS[req.endpoint].safeParse(req.body).success) return true;
    return c.job?.kind === 'scrape' && MODEL_MISSING.has(c.job.errorCode ?? '');
  },
  async diagnose(c: Case): Promise<Finding | undefined> {
    const req = failedRequest(c);
    if (req) {
      const found = schemaFinding(c, req.endpoint, req.body);
      if (found) return found;
    }
    const job = c.job;
    if (!job || !MODEL_MISSING.has(job.errorCode ?? '')) return undefined;
    // A format the engine cannot produce without a model: keep the others (markdown by default).
    const options = scrapeOptionsOf(job);
    const formats = (Array.isArray(options.formats) ? options.formats : []) as unknown[];
    const name = (f: unknown) => (typeof f === 'string' ? f.split('@')[0] : isObject(f) ? String(f.type) : '');
    const kept = formats.filter((f) => !MODEL_FORMATS.has(name(f)));
    const dropped = formats.filter((f) => MODEL_FORMATS.has(name(f))).map(name);
    const fix = scrapeOptionFix(job, { formats: kept.length ? kept : ['markdown'] });
    note(c, `scraped ${job.url} with formats ${JSON.stringify(kept.length ? kept : ['markdown'])}`);
    const probe = await probeScrape(c, job.url!, { ...options, formats: kept.length ? kept : ['markdown'] }, 30_000);
    return {
      cause: 'invalid_request',
      confidence: probe.ok ? 'high' : 'medium',
      answer: `The ${describeJob(job)} was refused (${job.errorCode === 'AI_NOT_CONFIGURED' ? 503 : 400} ${job.errorCode}) because the format${dropped.length > 1 ? 's' : ''} ${dropped.join(', ')} need${dropped.length > 1 ? '' : 's'} an AI model, and this service has none configured. Ask for ${kept.length ? kept.map(name).join(', ') : 'markdown'} instead (or configure a model).`,
      fixParameters: fix,
      validation: probe.ok
        ? { tested: true, result: 'success', evidence: `a scrape of ${pathOf(job.url)} with formats ${JSON.stringify(kept.length ? kept : ['markdown'])} succeeded (${probe.contentChars} characters)` }
        : { tested: true, result: 'failure', evidence: `a scrape with the fix failed: ${probe.error}` },
      feedback: null,
    };
  },
};

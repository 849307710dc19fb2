// Scrape options as the HTTP engine uses them: defaults filled in (reference 2.6 outline values),
// formats reduced to the five this engine produces, and a clear 400 for anything that needs a
// browser or a model, so a browser engine can take those requests later.
import { HttpError } from '../core/http-error.js';

export type OutputFormat = 'markdown' | 'html' | 'rawHtml' | 'links' | 'images';

export interface NormalizedOptions {
  formats: ReadonlySet<OutputFormat>;
  onlyMainContent: boolean;
  includeTags: string[];
  excludeTags: string[];
  headers: Record<string, string>;
  mobile: boolean;
  skipTlsVerification: boolean;
  timeoutMs: number;
  /** null: PDFs are not parsed (returned base64-encoded in markdown/html). */
  pdf: { maxPages?: number } | null;
  removeBase64Images: boolean;
  /** Cache: a copy younger than maxAge (ms) is returned; 0 = always fetch. */
  maxAge: number;
  /** Cache only: answer from a copy at least this old, never fetch. */
  minAge?: number;
  /** Cache only (any age), never fetch, never store. */
  lockdown: boolean;
  storeInCache: boolean;
  zeroDataRetention: boolean;
}

export interface OptionDefaults {
  timeoutMs: number;
  maxAgeMs: number;
}

/** Two years: lockdown answers from any cached copy. */
const LOCKDOWN_MAX_AGE_MS = 2 * 365 * 24 * 3600 * 1000;
const OUTPUT_FORMATS = new Set<string>(['markdown', 'html', 'rawHtml', 'links', 'images']);
const BROWSER_FORMATS = new Set(['screenshot']);
const MODEL_FORMATS = new Set(['json', 'summary', 'changeTracking']);

export function browserRequired(what: string): HttpError {
  return new HttpError(400, `${what} needs the browser engine, which is not enabled in this service`, { code: 'BROWSER_REQUIRED' });
}

function modelRequired(what: string): HttpError {
  return new HttpError(400, `${what} needs an AI model, which is not configured in this service`, { code: 'MODEL_REQUIRED' });
}

function badOption(message: string): HttpError {
  return new HttpError(400, message, { code: 'BAD_REQUEST' });
}

/** "markdown", { type: "markdown" } and the v1-style "screenshot@fullPage" all name a format. */
function formatName(format: unknown): string {
  if (typeof format === 'string') return format.split('@')[0];
  if (format && typeof format === 'object' && typeof (format as { type?: unknown }).type === 'string') {
    return (format as { type: string }).type;
  }
  throw badOption(`formats: each entry must be a format name or an object with a type, got ${JSON.stringify(format)}`);
}

function stringList(value: unknown, name: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw badOption(`${name} must be an array of strings`);
  return value as string[];
}

function num(value: unknown, name: string, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw badOption(`${name} must be a non-negative number`);
  return value;
}

function pdfParser(parsers: unknown): NormalizedOptions['pdf'] {
  if (parsers === undefined || parsers === null) return {};
  if (!Array.isArray(parsers)) throw badOption('parsers must be an array');
  for (const p of parsers) {
    const type = typeof p === 'string' ? p : (p as { type?: unknown } | null)?.type;
    if (type === 'pdf') {
      const maxPages = typeof p === 'object' ? (p as { maxPages?: unknown }).maxPages : undefined;
      return typeof maxPages === 'number' && maxPages > 0 ? { maxPages } : {};
    }
    if (typeof type !== 'string') throw badOption('parsers: each entry must be a parser name or an object with a type');
    throw badOption(`parsers: unknown parser "${type}" (supported: pdf)`);
  }
  return null;
}

/**
 * Validates and completes scrape options. Throws HttpError 400 with code BROWSER_REQUIRED for
 * screenshot formats, actions, waitFor > 0, location and profile; MODEL_REQUIRED for json,
 * summary and changeTracking. blockAds, proxy and onlyCleanContent are accepted as no-ops.
 */
export function normalizeOptions(options: Record<string, unknown>, defaults: OptionDefaults): NormalizedOptions {
  const formats = new Set<OutputFormat>();
  const requested = options.formats ?? ['markdown'];
  if (!Array.isArray(requested)) throw badOption('formats must be an array');
  for (const format of requested) {
    const name = formatName(format);
    if (OUTPUT_FORMATS.has(name)) formats.add(name as OutputFormat);
    else if (BROWSER_FORMATS.has(name)) throw browserRequired(`The "${name}" format`);
    else if (MODEL_FORMATS.has(name)) throw modelRequired(`The "${name}" format`);
    else throw badOption(`formats: unknown format "${name}"`);
  }

  const actions = options.actions;
  if (Array.isArray(actions) && actions.length > 0) throw browserRequired('actions');
  if (typeof options.waitFor === 'number' && options.waitFor > 0) throw browserRequired('waitFor');
  const location = options.location as { country?: unknown; languages?: unknown } | undefined | null;
  if (location && (location.country !== undefined || (Array.isArray(location.languages) && location.languages.length > 0))) {
    throw browserRequired('location emulation');
  }
  if (options.profile !== undefined && options.profile !== null) throw browserRequired('A browser profile');

  const headers: Record<string, string> = {};
  if (options.headers !== undefined && options.headers !== null) {
    if (typeof options.headers !== 'object' || Array.isArray(options.headers)) throw badOption('headers must be an object of strings');
    for (const [key, value] of Object.entries(options.headers as Record<string, unknown>)) {
      if (typeof value !== 'string') throw badOption(`headers.${key} must be a string`);
      headers[key.toLowerCase()] = value;
    }
  }

  const lockdown = options.lockdown === true;
  const zeroDataRetention = options.zeroDataRetention === true || lockdown;
  const timeoutMs = num(options.timeout, 'timeout', defaults.timeoutMs);
  if (timeoutMs === 0) throw badOption('timeout must be at least 1 ms');
  const minAge = options.minAge === undefined || options.minAge === null ? undefined : num(options.minAge, 'minAge', 0);

  return {
    formats,
    onlyMainContent: options.onlyMainContent !== false,
    includeTags: stringList(options.includeTags, 'includeTags'),
    excludeTags: stringList(options.excludeTags, 'excludeTags'),
    headers,
    mobile: options.mobile === true,
    skipTlsVerification: options.skipTlsVerification !== false,
    timeoutMs,
    pdf: pdfParser(options.parsers),
    removeBase64Images: options.removeBase64Images !== false,
    maxAge: lockdown ? LOCKDOWN_MAX_AGE_MS : num(options.maxAge, 'maxAge', defaults.maxAgeMs),
    minAge,
    lockdown,
    storeInCache: options.storeInCache !== false && !zeroDataRetention,
    zeroDataRetention,
  };
}

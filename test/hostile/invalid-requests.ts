// fast-check arbitraries of invalid requests, derived from the request schemas themselves
// (src/api/schemas): for every field, values that break its rule (wrong type, out of range,
// not an integer, bad enum, too long/short, bad URL/UUID/regex, unknown keys), each with the
// dotted path an error message must name. Shared by the client and the service tests.
import fc from 'fast-check';
import type { z } from 'zod';

export interface Invalid {
  value: unknown;
  /** Dotted path of the broken field (`scrapeOptions.waitFor`, `includePaths.0`); '' for the whole value. */
  path: string;
  /** Which rule was broken, for failure reports. */
  rule: string;
  /** Words the message must contain when the rule spans fields (`code`, `prompt`). */
  names?: string[];
}

type Schema = z.ZodType;
interface Def {
  type: string;
  innerType?: Schema;
  shape?: Record<string, Schema>;
  element?: Schema;
  options?: Schema[];
  entries?: Record<string, string>;
  values?: unknown[];
  keyType?: Schema;
  valueType?: Schema;
  in?: Schema;
  out?: Schema;
  format?: string;
  pattern?: RegExp;
  checks?: Array<{ _zod: { def: { check: string; minimum?: number; maximum?: number; value?: number; inclusive?: boolean; format?: string; pattern?: RegExp } } }>;
}

const defOf = (s: Schema): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

export function unwrap(s: Schema): Schema {
  let x = s;
  for (let i = 0; i < 10; i++) {
    const d = defOf(x);
    if ((d.type === 'optional' || d.type === 'nullable' || d.type === 'default') && d.innerType) x = d.innerType;
    else break;
  }
  return x;
}

const rejects = (schema: Schema) => (v: unknown) => !schema.safeParse(v).success;

interface Bounds { min?: number; max?: number; minInclusive: boolean; maxInclusive: boolean; int: boolean; minLength?: number; maxLength?: number; format?: string; pattern?: RegExp }

function bounds(s: Schema): Bounds {
  const d = defOf(s);
  const b: Bounds = { minInclusive: true, maxInclusive: true, int: false };
  if (d.format) b.format = d.format;
  if (d.pattern) b.pattern = d.pattern;
  for (const c of d.checks ?? []) {
    const cd = c._zod.def;
    if (cd.check === 'greater_than') { b.min = cd.value; b.minInclusive = cd.inclusive ?? true; }
    if (cd.check === 'less_than') { b.max = cd.value; b.maxInclusive = cd.inclusive ?? true; }
    if (cd.check === 'number_format' && /int/.test(cd.format ?? '')) b.int = true;
    if (cd.check === 'min_length') b.minLength = cd.minimum;
    if (cd.check === 'max_length') b.maxLength = cd.maximum;
    if (cd.check === 'string_format') { b.format = cd.format; b.pattern = cd.pattern; }
  }
  return b;
}

const SAFE = Number.MAX_SAFE_INTEGER;

/** Values of any JSON-ish type; filtered per field so only the wrong types remain. */
const anyType = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }),
  fc.double({ noNaN: false, noDefaultInfinity: false }),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 12 }),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 2 }),
);

const BAD_URLS = ['example.com', 'ftp://example.com/a', 'javascript:alert(1)', 'file:///etc/passwd', 'data:text/html,x', '//x.y/z', 'http//x', 'http://', 'mailto:a@b.c', ' ', 'ws://127.0.0.1/'];
const BAD_REGEXES = ['(', '[', '*a', 'a{2,1}', '\\', '(?<x)', '+', '[z-a]'];

/** Invalid values for one schema node, paths relative to it. */
export function invalidValues(schema: Schema, depth = 0): fc.Arbitrary<Invalid> {
  const s = unwrap(schema);
  const d = defOf(s);
  const wrongType = (rule = 'wrong type') =>
    anyType.filter(rejects(s)).map((value): Invalid => ({ value, path: '', rule }));
  const arbs: Array<fc.Arbitrary<Invalid>> = [];
  switch (d.type) {
    case 'string': {
      const b = bounds(s);
      arbs.push(fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 2 }), fc.object({ maxDepth: 1 }))
        .map((value) => ({ value, path: '', rule: 'not a string' })));
      if (b.minLength !== undefined && b.minLength > 0) {
        arbs.push(fc.string({ maxLength: b.minLength - 1 }).filter(rejects(s)).map((value) => ({ value, path: '', rule: `shorter than ${b.minLength}` })));
      }
      if (b.maxLength !== undefined) {
        const max = b.maxLength;
        arbs.push(fc.integer({ min: 1, max: 64 }).map((n) => ({ value: 'x'.repeat(max + n), path: '', rule: `longer than ${max}` })));
      }
      if (b.format === 'url') {
        arbs.push(fc.oneof(fc.constantFrom(...BAD_URLS), fc.string({ maxLength: 20 })).filter(rejects(s)).map((value) => ({ value, path: '', rule: 'not an http(s) URL' })));
      } else if (b.format === 'uuid') {
        arbs.push(invalidUuid().map((value) => ({ value, path: '', rule: 'not a UUID' })));
      } else if (b.pattern || defOf(s).checks?.some((c) => c._zod.def.check === 'custom' || c._zod.def.check === 'string_format')) {
        arbs.push(fc.oneof(fc.constantFrom(...BAD_REGEXES), fc.string({ maxLength: 12 })).filter(rejects(s)).map((value) => ({ value, path: '', rule: 'breaks the pattern' })));
      }
      break;
    }
    case 'number': {
      const b = bounds(s);
      arbs.push(fc.oneof(fc.string({ maxLength: 6 }), fc.boolean(), fc.constant(null), fc.constant(Number.NaN), fc.constant(Number.POSITIVE_INFINITY), fc.array(fc.integer(), { maxLength: 2 }))
        .filter(rejects(s)).map((value) => ({ value, path: '', rule: 'not a number' })));
      if (b.min !== undefined && b.min > -SAFE) {
        const min = b.min;
        arbs.push(fc.integer({ min: 1, max: 1_000_000 }).map((n) => ({ value: min - n, path: '', rule: `below ${min}` })));
      }
      if (b.max !== undefined && b.max < SAFE) {
        const max = b.max;
        arbs.push(fc.integer({ min: 1, max: 1_000_000 }).map((n) => ({ value: max + n, path: '', rule: `above ${max}` })));
      }
      if (b.int) {
        const lo = Math.max(b.min ?? 0, -1e6);
        arbs.push(fc.integer({ min: 0, max: 1000 }).map((n) => ({ value: lo + n + 0.5, path: '', rule: 'not an integer' })));
      }
      break;
    }
    case 'boolean':
      arbs.push(fc.oneof(fc.constantFrom('true', 'false', 0, 1, null, 'yes'), fc.string({ maxLength: 5 })).filter(rejects(s)).map((value) => ({ value, path: '', rule: 'not a boolean' })));
      break;
    case 'enum': {
      const options = Object.values(d.entries ?? {});
      arbs.push(fc.oneof(fc.constantFrom(...options.map((o) => String(o).toUpperCase()), ...options.map((o) => ` ${String(o)}`)), fc.string({ maxLength: 12 }), fc.integer())
        .filter(rejects(s)).map((value) => ({ value, path: '', rule: `not one of ${options.join('|')}` })));
      break;
    }
    case 'literal':
      arbs.push(wrongType('not the literal'));
      break;
    case 'array': {
      arbs.push(fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.constant(null), fc.dictionary(fc.string({ maxLength: 4 }), fc.integer(), { maxKeys: 2 }))
        .filter(rejects(s)).map((value) => ({ value, path: '', rule: 'not an array' })));
      const b = bounds(s);
      if (b.minLength !== undefined && b.minLength > 0) arbs.push(fc.constant({ value: [], path: '', rule: `fewer than ${b.minLength} items` }));
      if (b.maxLength !== undefined && d.element) {
        const sample = validSample(d.element);
        const max = b.maxLength;
        if (sample.ok) arbs.push(fc.integer({ min: 1, max: 5 }).map((n) => ({ value: Array.from({ length: max + n }, () => sample.value), path: '', rule: `more than ${max} items` })));
      }
      if (d.element && depth < 3) {
        arbs.push(invalidValues(d.element, depth + 1).map((inv) => ({ value: [inv.value], path: join('0', inv.path), rule: `item: ${inv.rule}` })));
      }
      break;
    }
    case 'object': {
      arbs.push(fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.constant(null), fc.array(fc.integer(), { maxLength: 2 }), fc.boolean())
        .map((value) => ({ value, path: '', rule: 'not an object' })));
      if (depth < 3) {
        const base = validSample(s);
        const start = base.ok && base.value && typeof base.value === 'object' ? (base.value as Record<string, unknown>) : {};
        arbs.push(objectFieldMutations(s, start, depth));
      }
      break;
    }
    case 'record':
      arbs.push(fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.array(fc.integer(), { maxLength: 2 }), fc.boolean())
        .filter(rejects(s)).map((value) => ({ value, path: '', rule: 'not an object' })));
      if (d.valueType && depth < 3 && defOf(unwrap(d.valueType)).type !== 'unknown') {
        const valueType = d.valueType;
        arbs.push(fc.tuple(fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/), invalidValues(valueType, depth + 1))
          .map(([key, inv]) => ({ value: { [key]: inv.value }, path: join(key, inv.path), rule: `value: ${inv.rule}` })));
      }
      break;
    case 'union':
      arbs.push(wrongType('matches no alternative'));
      break;
    case 'pipe': {
      // Query integers and booleans: text or typed on the way in, checked on the way out.
      const out = d.out ? unwrap(d.out) : s;
      const b = bounds(out);
      const texts = ['abc', '1.5', '', ' ', '1e3', '0x10', '--1', 'NaN', 'Infinity', 'yes', '2 3'];
      arbs.push(fc.oneof(fc.constantFrom(...texts), fc.boolean(), fc.constant(null), fc.array(fc.integer(), { maxLength: 1 }))
        .filter(rejects(s)).map((value) => ({ value, path: '', rule: 'not an integer' })));
      if (b.min !== undefined) {
        const min = b.min;
        arbs.push(fc.integer({ min: 1, max: 1000 }).chain((n) => fc.constantFrom(min - n, String(min - n))).map((value) => ({ value, path: '', rule: `below ${min}` })));
      }
      if (b.max !== undefined && b.max < SAFE) {
        const max = b.max;
        arbs.push(fc.integer({ min: 1, max: 1000 }).chain((n) => fc.constantFrom(max + n, String(max + n))).map((value) => ({ value, path: '', rule: `above ${max}` })));
      }
      break;
    }
    default:
      break;
  }
  if (arbs.length === 0) return wrongType();
  return fc.oneof(...arbs);
}

/** One field of a strict object made invalid, or an unknown key added; the rest stays valid. */
export function objectFieldMutations(schema: Schema, base: Record<string, unknown>, depth = 0): fc.Arbitrary<Invalid> {
  const s = unwrap(schema);
  const shape = defOf(s).shape ?? {};
  const keys = Object.keys(shape).filter((k) => invalidValuesExist(shape[k]));
  const fieldArbs = keys.map((key) =>
    // Filtered by the field's own schema: a nullable field (a PATCH's `goal: null` clears it) takes null.
    invalidValues(shape[key], depth + 1).filter((inv) => inv.path !== '' || rejects(shape[key])(inv.value)).map((inv): Invalid => ({
      value: withKey(base, key, inv.value),
      path: join(key, inv.path),
      rule: inv.rule,
    })),
  );
  const known = new Set(Object.keys(shape));
  const unknownKey = fc.oneof(
    fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,15}$/),
    fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'apiKey', 'Limit', 'URL', 'url ', 'scrape_options'),
  ).filter((k) => !known.has(k));
  const unknown = fc.tuple(unknownKey, fc.jsonValue({ maxDepth: 1 })).map(([key, v]): Invalid => ({
    value: withKey(base, key, v),
    path: key,
    rule: 'unknown key',
  }));
  return fc.oneof(...fieldArbs, unknown);
}

function invalidValuesExist(schema: Schema): boolean {
  const t = defOf(unwrap(schema)).type;
  return t !== 'unknown' && t !== 'any';
}

/** A copy of `base` with an own property `key` (also `__proto__`), as JSON.parse would make it. */
export function withKey(base: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...base };
  Object.defineProperty(copy, key, { value, enumerable: true, configurable: true, writable: true });
  return copy;
}

function join(head: string, tail: string): string {
  return tail ? `${head}.${tail}` : head;
}

/** Strings that are not UUIDs, close ones included (one char short, a non-hex digit, braces). */
export function invalidUuid(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.uuid().map((u) => u.slice(1)),
    fc.uuid().map((u) => `${u}0`),
    fc.uuid().map((u) => `${u.slice(0, 9)}g${u.slice(10)}`),
    fc.uuid().map((u) => `{${u}}`),
    fc.uuid().map((u) => u.replace(/-/g, '')),
    fc.constantFrom('..', '../etc/passwd', '%2e%2e', 'active', 'null', 'undefined', ' ', '0', '-1', '1e9', '<script>'),
  ).filter((v) => !/^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i.test(v) && v !== '00000000-0000-0000-0000-000000000000');
}

/** A value the schema accepts, built from its rules (required fields only). */
export function validSample(schema: Schema): { ok: true; value: unknown } | { ok: false } {
  const s = unwrap(schema);
  const d = defOf(s);
  let value: unknown;
  switch (d.type) {
    case 'string': {
      const b = bounds(s);
      value = b.format === 'url' ? 'http://127.0.0.1:9/' : b.format === 'uuid' ? '0b6f8a1e-4c1d-4a57-9d51-5b1f0a6c2e11' : 'a'.repeat(Math.max(1, b.minLength ?? 1));
      if (b.pattern && !b.pattern.test(String(value))) value = 'US';
      break;
    }
    case 'number': {
      const b = bounds(s);
      value = b.min !== undefined ? (b.minInclusive ? b.min : b.min + 1) : 1;
      break;
    }
    case 'boolean': value = true; break;
    case 'enum': value = Object.values(d.entries ?? {})[0]; break;
    case 'literal': value = d.values?.[0]; break;
    case 'array': value = []; break;
    case 'record': value = {}; break;
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(d.shape ?? {})) {
        if (defOf(v).type === 'optional') continue;
        const sample = validSample(v);
        if (!sample.ok) return { ok: false };
        out[k] = sample.value;
      }
      value = out;
      break;
    }
    case 'union': {
      for (const option of d.options ?? []) {
        const sample = validSample(option);
        if (sample.ok) return sample;
      }
      return { ok: false };
    }
    default:
      return { ok: false };
  }
  return s.safeParse(value).success ? { ok: true, value } : { ok: false };
}

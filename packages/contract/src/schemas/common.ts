// Building blocks shared by the request schemas.
//
// Defaults: no schema here applies `.default()`. The local service validates incoming
// bodies with these same schemas and must tell "absent" from "default" (for example a
// crawl `limit` that is absent is clamped to the team's credits, an explicit one is not),
// so parsing never invents values; the service applies the reference's defaults itself.
import { z } from 'zod';
import { MAX_HEADER_NAME, MAX_HEADER_VALUE, MAX_HEADERS } from '../defaults.js';
import { httpUrlSchema } from './factories.js';

/** Keys that official SDKs send on every request; accepted by every body. */
export const sdkKeys = {
  origin: z.string().optional(),
  integration: z.string().optional(),
};

/** A request body: strict (unknown key = error) plus the SDK keys. */
export function body<T extends z.core.$ZodLooseShape>(shape: T) {
  return z.strictObject({ ...shape, ...sdkKeys });
}

export const httpUrl = httpUrlSchema();

export const uuid = z.uuid();

export const nonEmpty = z.string().min(1);

export const int = z.number().int();

export const stringRecord = z.record(z.string(), z.string());

/** Custom request headers a user sets: bounded in count and size (the reference names no limit). */
export const headersSchema = z.record(
  z.string().min(1).max(MAX_HEADER_NAME),
  z.string().max(MAX_HEADER_VALUE),
).refine((h) => Object.keys(h).length <= MAX_HEADERS, { error: `must set at most ${MAX_HEADERS} headers` });

export const sitemapMode = z.enum(['skip', 'include', 'only']);

/** ISO 3166-1 alpha-2 code; case is not significant on the hosted service. */
export const countryCode = z.string().regex(/^[A-Za-z]{2}$/, { error: 'must be a two-letter ISO country code' });

export const locationSchema = z.strictObject({
  country: countryCode.optional(),
  languages: z.array(nonEmpty).optional(),
});

/** Profile object (2.2). */
export const profileSchema = z.strictObject({
  name: z.string().min(1).max(128),
  saveChanges: z.boolean().optional(),
});

// Query strings arrive as text on the server and as numbers/booleans from the client;
// both are accepted and the output is always the typed value.
export function queryInt(min: number, max?: number) {
  let n = z.number().int().min(min);
  if (max !== undefined) n = n.max(max);
  return z
    .union([z.number(), z.string().trim().regex(/^-?\d+$/, { error: 'must be an integer' }).transform(Number)], {
      error: 'must be an integer',
    })
    .pipe(n);
}

const BOOL_RULE = 'must be a boolean (true or false)';
export const queryBool = z.union(
  [
    z.boolean(),
    z
      .string()
      .regex(/^(true|false|1|0)$/, { error: BOOL_RULE })
      .transform((v) => v === 'true' || v === '1'),
  ],
  { error: BOOL_RULE },
);

export const jobIdSchema = uuid;

// Scrape options (2.6 and contract notes "Scrape"): formats, actions, and the request
// of POST /v2/scrape. The options are kept as a plain shape so crawl/search can nest
// them and batch scrape can spread them at top level, each object strict.
import { z } from 'zod';
import { body, headersSchema, httpUrl, int, locationSchema, nonEmpty, profileSchema } from './common.js';
import { MAX_ACTION_SCRIPT, MAX_ACTION_TEXT, MAX_ACTIONS, MAX_FORMAT_PROMPT, MAX_TOTAL_WAIT_MS } from '../defaults.js';

export const formatNames = [
  'markdown',
  'html',
  'rawHtml',
  'links',
  'images',
  'screenshot',
  'summary',
  'json',
  'changeTracking',
] as const;
export const formatNameSchema = z.enum(formatNames);

const viewportSchema = z.strictObject({ width: int.min(1), height: int.min(1) });
const screenshotOptions = {
  fullPage: z.boolean().optional(),
  quality: int.min(0).max(100).optional(),
  viewport: viewportSchema.optional(),
};

const simpleFormat = (type: 'markdown' | 'html' | 'rawHtml' | 'links' | 'images' | 'summary') =>
  z.strictObject({ type: z.literal(type) });

export const formatObjectSchema = z.discriminatedUnion('type', [
  simpleFormat('markdown'),
  simpleFormat('html'),
  simpleFormat('rawHtml'),
  simpleFormat('links'),
  simpleFormat('images'),
  simpleFormat('summary'),
  z.strictObject({ type: z.literal('screenshot'), ...screenshotOptions }),
  z.strictObject({
    type: z.literal('json'),
    schema: z.record(z.string(), z.unknown()).optional(),
    prompt: nonEmpty.max(MAX_FORMAT_PROMPT).optional(),
  }),
  z.strictObject({
    type: z.literal('changeTracking'),
    modes: z.array(z.enum(['git-diff', 'json'])).optional(),
    schema: z.record(z.string(), z.unknown()).optional(),
    prompt: nonEmpty.max(MAX_FORMAT_PROMPT).optional(),
    tag: z.string().optional(),
  }),
]);

export const formatSchema = z.union([formatNameSchema, formatObjectSchema], {
  error: `must be a format name (${formatNames.join(', ')}) or an object with a type`,
});

export const actionSchema = z.discriminatedUnion('type', [
  z
    .strictObject({ type: z.literal('wait'), milliseconds: int.min(1).optional(), selector: nonEmpty.optional() })
    .refine((a) => (a.milliseconds === undefined) !== (a.selector === undefined), {
      error: 'wait needs exactly one of milliseconds or selector',
    }),
  z.strictObject({ type: z.literal('click'), selector: nonEmpty, all: z.boolean().optional() }),
  z.strictObject({ type: z.literal('write'), text: z.string().max(MAX_ACTION_TEXT) }),
  z.strictObject({ type: z.literal('press'), key: nonEmpty }),
  z.strictObject({ type: z.literal('scroll'), direction: z.enum(['up', 'down']), selector: nonEmpty.optional() }),
  z.strictObject({ type: z.literal('screenshot'), ...screenshotOptions }),
  z.strictObject({ type: z.literal('scrape') }),
  z.strictObject({ type: z.literal('executeJavascript'), script: nonEmpty.max(MAX_ACTION_SCRIPT) }),
  z.strictObject({
    type: z.literal('pdf'),
    format: z.string().optional(),
    landscape: z.boolean().optional(),
    scale: z.number().positive().optional(),
  }),
]);

export const proxySchema = z.enum(['basic', 'stealth', 'enhanced', 'auto']);

/** Members of the scrape options object (2.6), all optional. */
export const scrapeOptionsShape = {
  formats: z.array(formatSchema).optional(),
  onlyMainContent: z.boolean().optional(),
  onlyCleanContent: z.boolean().optional(),
  includeTags: z.array(nonEmpty).optional(),
  excludeTags: z.array(nonEmpty).optional(),
  maxAge: int.min(0).optional(),
  minAge: int.min(0).optional(),
  headers: headersSchema.optional(),
  waitFor: int.min(0).max(MAX_TOTAL_WAIT_MS).optional(),
  mobile: z.boolean().optional(),
  skipTlsVerification: z.boolean().optional(),
  timeout: int.min(1).optional(),
  parsers: z.array(nonEmpty).optional(),
  actions: z.array(actionSchema).max(MAX_ACTIONS).optional(),
  location: locationSchema.optional(),
  removeBase64Images: z.boolean().optional(),
  blockAds: z.boolean().optional(),
  proxy: proxySchema.optional(),
  storeInCache: z.boolean().optional(),
  lockdown: z.boolean().optional(),
  profile: profileSchema.optional(),
};

interface WaitingInput {
  waitFor?: number | undefined;
  actions?: ReadonlyArray<{ type: string; milliseconds?: number | undefined }> | undefined;
}

/** Adds the "at most 60 s of total waiting" rule to any object holding scrape options. */
export function checkTotalWait(value: WaitingInput, ctx: z.RefinementCtx): void {
  let total = value.waitFor ?? 0;
  for (const a of value.actions ?? []) if (a.type === 'wait') total += a.milliseconds ?? 0;
  if (total > MAX_TOTAL_WAIT_MS) {
    ctx.addIssue({
      code: 'custom',
      path: value.actions ? ['actions'] : ['waitFor'],
      message: `total waiting (wait actions + waitFor) must be at most ${MAX_TOTAL_WAIT_MS} ms, got ${total}`,
    });
  }
}

/** scrapeOptions nested in crawl and search requests. */
export const scrapeOptionsSchema = z.strictObject(scrapeOptionsShape).superRefine(checkTotalWait);

/** POST /v2/scrape. */
export const scrapeRequestSchema = body({
  url: httpUrl,
  ...scrapeOptionsShape,
  zeroDataRetention: z.boolean().optional(),
}).superRefine(checkTotalWait);

export type ScrapeFormat = z.input<typeof formatSchema>;
export type ScrapeAction = z.input<typeof actionSchema>;
export type ScrapeOptions = z.input<typeof scrapeOptionsSchema>;
export type ScrapeOptionsParsed = z.output<typeof scrapeOptionsSchema>;
export type ScrapeRequest = z.input<typeof scrapeRequestSchema>;
export type ScrapeRequestParsed = z.output<typeof scrapeRequestSchema>;

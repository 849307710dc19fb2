// POST /v2/batch/scrape (contract notes "Batch scrape"): urls plus every scrape option
// at top level.
import { z } from 'zod';
import { body, int, uuid } from './common.js';
import { checkTotalWait, scrapeOptionsShape } from './scrape.js';
import { webhookSpecSchema } from './webhook.js';

export const batchScrapeRequestSchema = body({
  // Entries are checked below: with ignoreInvalidURLs the service drops bad ones and
  // reports them as invalidURLs, so they must not fail validation.
  urls: z.array(z.string()).min(1),
  webhook: webhookSpecSchema.optional(),
  maxConcurrency: int.min(1).optional(),
  ignoreInvalidURLs: z.boolean().optional(),
  /** Adds the URLs to this existing batch job of the team instead of starting a new one (hosted service, 2026). */
  appendToId: uuid.optional(),
  zeroDataRetention: z.boolean().optional(),
  ...scrapeOptionsShape,
}).superRefine((value, ctx) => {
  checkTotalWait(value, ctx);
  if (value.ignoreInvalidURLs === true) return;
  value.urls.forEach((u, i) => {
    if (!isHttpUrl(u)) ctx.addIssue({ code: 'custom', path: ['urls', i], message: 'must be a valid http(s) URL' });
  });
});

/** Same acceptance as the `httpUrl` schema: parses, and the scheme is http or https. */
export function isHttpUrl(value: string): boolean {
  return HTTP_URL.safeParse(value).success;
}
/** Built once: a batch checks each of its URLs, and building the schema cost more than the check. */
const HTTP_URL = z.url({ protocol: /^https?$/ });

export type BatchScrapeRequest = z.input<typeof batchScrapeRequestSchema>;
export type BatchScrapeRequestParsed = z.output<typeof batchScrapeRequestSchema>;

// What a client posts to start a crawl, checked field by field (one line naming the field and the
// rule), and the crawl's id: the client's request id, else a hash of what the request asks, so
// the same request posted twice names the same crawl.
import { createHash } from 'node:crypto';
import type { PipelineInput } from 'webdata-temporal';

export interface CrawlRequest {
  customer: string;
  url: string;
  /** Path patterns (regular expressions) of the pages to keep, e.g. `^/docs`. */
  include?: string[];
  /** Pages at most; default 20. */
  limit: number;
  /** The client's own id for this request: retries with the same id start nothing new. */
  requestId?: string;
}

export class BadRequest extends Error {
  override name = 'BadRequest';
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const NAME_RULE = 'must be 1-64 letters, digits, dot, dash or underscore, starting with a letter or digit';

export function parseCrawlRequest(body: unknown): CrawlRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new BadRequest('body: must be a JSON object such as {"customer": "acme", "url": "https://docs.example.com/"}');
  const b = body as Record<string, unknown>;
  const known = ['customer', 'url', 'include', 'limit', 'requestId'];
  const unknown = Object.keys(b).find((k) => !known.includes(k));
  if (unknown !== undefined) throw new BadRequest(`${unknown}: unknown field (fields: ${known.join(', ')})`);
  if (typeof b.customer !== 'string' || !NAME.test(b.customer)) throw new BadRequest(`customer: required, ${NAME_RULE}`);
  if (typeof b.url !== 'string' || b.url === '') throw new BadRequest('url: required, a string (the site to crawl, "https://...")');
  if (b.include !== undefined && (!Array.isArray(b.include) || !b.include.every((p) => typeof p === 'string'))) throw new BadRequest('include: must be a list of path patterns (strings)');
  if (b.limit !== undefined && (typeof b.limit !== 'number' || !Number.isInteger(b.limit) || b.limit < 1 || b.limit > 1000)) throw new BadRequest('limit: must be a whole number from 1 to 1000');
  if (b.requestId !== undefined && (typeof b.requestId !== 'string' || !NAME.test(b.requestId))) throw new BadRequest(`requestId: ${NAME_RULE}`);
  return {
    customer: b.customer,
    url: b.url,
    ...(b.include !== undefined ? { include: b.include as string[] } : {}),
    limit: (b.limit as number | undefined) ?? 20,
    ...(b.requestId !== undefined ? { requestId: b.requestId as string } : {}),
  };
}

/**
 * The crawl's workflow id. With a request id: `crawl-<customer>-<requestId>`. Without: a hash
 * of the customer and what they asked (url, include, limit), so an identical request is the same
 * crawl. Temporal refuses a second workflow with an id it has seen (start-crawl.ts), which makes
 * the start idempotent across servers and restarts, with no table of our own.
 */
export function crawlId(request: CrawlRequest): string {
  if (request.requestId !== undefined) return `crawl-${request.customer}-${request.requestId}`;
  const asked = JSON.stringify([request.customer, request.url, request.include ?? [], request.limit]);
  return `crawl-${request.customer}-${createHash('sha256').update(asked).digest('hex').slice(0, 20)}`;
}

/** The pipeline's input for a request; `webhookUrl` is this server's receiver. */
export function pipelineInputOf(request: CrawlRequest, webhookUrl: string): PipelineInput {
  return {
    url: request.url,
    select: { limit: request.limit, ...(request.include ? { include: request.include } : {}) },
    crawl: { limit: request.limit },
    webhookUrl,
  };
}

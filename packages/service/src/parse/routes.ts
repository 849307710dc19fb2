// POST /v2/parse (contract notes): one file uploaded as multipart/form-data (field `file`, up
// to 50 MB) with optional JSON `options` (`formats`, `parsers`), answered like a scrape.
import { MAX_PARSE_FILE_BYTES, parseOptionsSchema } from 'webdata-contract';
import type { ParseResponse } from 'webdata-contract';
import { HttpError } from '../core/http-error.js';
import type { PageDocument } from '../core/scrape.js';
import type { RouteRequest, RouteResponse, Router } from '../core/routes.js';
import type { ServiceContext } from '../core/service.js';
import { requireCredits } from '../billing/guard.js';
import { scrapeCredits } from '../billing/prices.js';
import { badRequest } from '../http/errors.js';
import { newJobId } from '../http/ids.js';
import { parseBody } from '../http/validate.js';
import { TAKES, convertFile, detectKind } from './convert.js';

/** Room for the multipart framing and the options part around a file of the maximum size. */
const FRAMING_BYTES = 1024 * 1024;
const FORMATS = ['markdown', 'html', 'rawHtml', 'links'] as const;
const MB = MAX_PARSE_FILE_BYTES / (1024 * 1024);

export function registerParseRoutes(router: Router, ctx: ServiceContext): void {
  router.add('POST', '/v2/parse', (req) => parse(ctx, req), { group: 'scrape', rawBodyLimit: MAX_PARSE_FILE_BYTES + FRAMING_BYTES });
}

interface Upload {
  bytes: Buffer;
  filename: string;
  contentType: string;
  options: unknown;
}

async function readForm(req: RouteRequest): Promise<Upload> {
  const type = String(req.headers['content-type'] ?? '');
  if (!/^multipart\/form-data/i.test(type)) {
    throw new HttpError(415, `POST /v2/parse takes multipart/form-data with the file in the field "file" (${TAKES}), not ${type.split(';')[0] || 'an empty content type'}`, {
      code: 'UNSUPPORTED_MEDIA_TYPE',
    });
  }
  if (!Buffer.isBuffer(req.body)) throw badRequest(`No file uploaded: send the file in the multipart field "file" (${TAKES})`, [{ path: 'file', message: 'is required' }]);
  let form: FormData;
  try {
    form = await new Response(new Uint8Array(req.body), { headers: { 'content-type': type } }).formData();
  } catch (err) {
    throw badRequest(`Bad Request: malformed multipart body (${(err as Error).message})`);
  }
  const file = form.get('file');
  if (file === null || typeof file === 'string') {
    throw badRequest(`No file uploaded: send the file in the multipart field "file" (${TAKES})`, [{ path: 'file', message: 'is required' }]);
  }
  if (file.size > MAX_PARSE_FILE_BYTES) {
    throw new HttpError(413, `File too large: ${file.size} bytes; POST /v2/parse takes files up to ${MB} MB (${MAX_PARSE_FILE_BYTES} bytes)`, { code: 'PAYLOAD_TOO_LARGE' });
  }
  let options: unknown;
  const rawOptions = form.get('options');
  if (typeof rawOptions === 'string' && rawOptions.trim() !== '') {
    try {
      options = JSON.parse(rawOptions) as unknown;
    } catch (err) {
      throw new HttpError(400, `Bad Request: options: invalid JSON (${(err as Error).message})`, { code: 'BAD_REQUEST_INVALID_JSON' });
    }
  }
  return { bytes: Buffer.from(await file.arrayBuffer()), filename: file.name ?? '', contentType: file.type ?? '', options };
}

async function parse(ctx: ServiceContext, req: RouteRequest): Promise<RouteResponse<ParseResponse>> {
  const upload = await readForm(req);
  const options = parseBody(parseOptionsSchema, upload.options ?? {});
  const formats = (options.formats ?? ['markdown']).map((f) => (typeof f === 'string' ? f : f.type));
  const unsupported = formats.filter((f) => !(FORMATS as readonly string[]).includes(f));
  if (unsupported.length > 0) {
    throw badRequest(`Bad Request: format ${unsupported.join(', ')} is not available for parse (it takes ${FORMATS.join(', ')})`, [
      { path: 'options.formats', message: `takes ${FORMATS.join(', ')}` },
    ]);
  }
  const kind = detectKind(upload.bytes, upload.filename, upload.contentType);
  const credits = scrapeCredits(1, options.formats);
  requireCredits(ctx.ledger, req.team, credits);

  const parsed = await convertFile(upload.bytes, kind, { pdfParser: options.parsers === undefined || options.parsers.includes('pdf'), signal: req.signal });
  const scrapeId = newJobId(ctx.now());
  ctx.ledger.charge({ teamId: req.team.id, apiKey: req.apiKey, credits, reason: 'parse', jobId: scrapeId });
  const name = upload.filename || 'upload';
  const document: PageDocument = {
    ...(formats.includes('markdown') ? { markdown: parsed.markdown } : {}),
    ...(formats.includes('html') ? { html: parsed.html } : {}),
    ...(formats.includes('rawHtml') ? { rawHtml: parsed.rawHtml } : {}),
    ...(formats.includes('links') ? { links: parsed.links } : {}),
    metadata: {
      ...(parsed.title ? { title: parsed.title } : {}),
      sourceURL: name,
      url: name,
      statusCode: 200,
      scrapeId,
      contentType: upload.contentType || 'application/octet-stream',
      fileType: kind,
      fileSize: upload.bytes.length,
      ...(parsed.numPages !== undefined ? { numPages: parsed.numPages } : {}),
      creditsUsed: credits,
    },
  };
  return { body: { success: true, data: document } };
}

// Worker thread of the conversion pool: converts one HTML page per message. Errors travel back as
// data; an HttpError (an invalid includeTags/excludeTags selector) keeps its status and code.
import { parentPort } from 'node:worker_threads';
import { HttpError } from '../core/http-error.js';
import { convertHtml } from './html.js';
import type { ConvertRequest, ConvertResponse } from './convert-pool.js';

parentPort?.on('message', (req: ConvertRequest) => {
  let res: ConvertResponse;
  try {
    // The page's own HTML is not sent back: the pool has it.
    const { rawHtml: _, ...content } = convertHtml(req.html, req.url, req.options);
    res = { id: req.id, content };
  } catch (err) {
    const error = err instanceof Error ? err : new Error(String(err));
    res = {
      id: req.id,
      error: { message: error.message, ...(error instanceof HttpError ? { status: error.status, code: error.code } : {}) },
    };
  }
  parentPort?.postMessage(res);
});

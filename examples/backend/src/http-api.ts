// The HTTP API: POST /crawls starts a crawl (idempotent), GET /crawls/:id answers where it is,
// and /webhooks is the package's webhook receiver, which signals a pipeline when one of its jobs
// ends, so it moves on at once instead of at its next status read.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { getProgress, PipelineInputError } from 'webdata-temporal';
import type { WebhookRequestHandler } from 'webdata-temporal/webhooks';
import type { CrawlSummary } from './activities.js';
import { BadRequest, parseCrawlRequest } from './crawl-request.js';
import { pipelineWorkflowId } from './ids.js';
import { startCrawl } from './start-crawl.js';

export interface CrawlApiOptions {
  client: Client;
  taskQueue: string;
  /** The receiver's URL as the service reaches it: given to every pipeline as its webhookUrl. */
  webhookUrl: string;
  webhooks: WebhookRequestHandler;
}

const MAX_BODY_BYTES = 64 * 1024;

function answer(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of req) {
    text += String(chunk);
    if (text.length > MAX_BODY_BYTES) throw new BadRequest(`body: must be at most ${MAX_BODY_BYTES} bytes`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new BadRequest('body: must be JSON');
  }
}

/** Where a crawl is: its workflow's status, the pipeline's progress while it runs, the summary once done. */
async function readCrawl(client: Client, id: string): Promise<Record<string, unknown>> {
  const handle = client.workflow.getHandle(id);
  const described = await handle.describe();
  const status = described.status.name;
  if (status === 'COMPLETED') return { id, status, summary: (await handle.result()) as CrawlSummary };
  if (status !== 'RUNNING') return { id, status };
  try {
    const progress = await getProgress(client, pipelineWorkflowId(id));
    return { id, status, pipeline: { stage: progress.stage, status: progress.status, documents: progress.documents, credits: progress.credits.spent } };
  } catch (err) {
    // The pipeline has not started yet.
    if (err instanceof WorkflowNotFoundError) return { id, status };
    throw err;
  }
}

export function createCrawlApi(options: CrawlApiOptions): RequestListener {
  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path === '/webhooks' || path.startsWith('/webhooks/')) return options.webhooks(req, res);
    if (req.method === 'POST' && path === '/crawls') {
      const request = parseCrawlRequest(await readJson(req));
      const started = await startCrawl(options.client, options.taskQueue, request, options.webhookUrl);
      return answer(res, started.created ? 201 : 200, started);
    }
    const match = /^\/crawls\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && match?.[1] !== undefined) return answer(res, 200, await readCrawl(options.client, decodeURIComponent(match[1])));
    return answer(res, 404, { error: `no route ${req.method ?? ''} ${path}` });
  };
  return (req, res) => {
    route(req, res).catch((err: unknown) => {
      if (err instanceof BadRequest || err instanceof PipelineInputError) return answer(res, 400, { error: err.message });
      if (err instanceof WorkflowNotFoundError) return answer(res, 404, { error: `no crawl ${err.workflowId ?? ''}` });
      console.error(err);
      return answer(res, 500, { error: 'internal error' });
    });
  };
}

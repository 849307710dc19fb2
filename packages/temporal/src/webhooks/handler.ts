// Webhook receiver: verifies the signature over the raw body, refuses malformed bodies and
// replays, then signals the workflow named in the webhook metadata. Only job-level events
// (started, completed, failed) become signals; page events are acknowledged and dropped so
// history never grows with pages. Answers fast: a slow Temporal never holds the delivery.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Client } from '@temporalio/client';
import { parseWebhookPayload, verifyWebhookSignature, SIGNATURE_HEADER } from 'webdata-client';
import { jobEventSignal } from '../workflows/definitions.js';
import { ReplayGuard } from './replay-guard.js';

export interface WebhookHandlerOptions {
  client: Client;
  /** The team's HMAC secret. Required unless `allowUnsigned` is set (local experiments only). */
  secret?: string;
  allowUnsigned?: boolean;
  maxBodyBytes?: number;
  /** How long to wait for the signal before answering anyway (polling reconciles). */
  signalWaitMs?: number;
  replayGuard?: ReplayGuard;
  log?: (line: string) => void;
  /** Observes every decision (tests, metrics). */
  onDecision?: (decision: WebhookDecision) => void;
}

export interface WebhookDecision {
  status: number;
  outcome: 'signalled' | 'ignored' | 'rejected';
  reason: string;
  workflowId?: string;
  jobId?: string;
  type?: string;
}

const JOB_LEVEL = /\.(started|completed|failed)$/;

export type WebhookRequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

export function createWebhookHandler(options: WebhookHandlerOptions): WebhookRequestHandler {
  if (!options.secret && !options.allowUnsigned) {
    throw new Error('webhook receiver: secret is required (set allowUnsigned only for local experiments)');
  }
  const maxBody = options.maxBodyBytes ?? 1024 * 1024;
  const waitMs = options.signalWaitMs ?? 2_000;
  const guard = options.replayGuard ?? new ReplayGuard();
  const log = options.log ?? (() => {});

  function answer(res: ServerResponse, decision: WebhookDecision): void {
    options.onDecision?.(decision);
    if (decision.outcome === 'rejected') log(`webhook rejected (${decision.status}): ${decision.reason}`);
    res.writeHead(decision.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok: decision.outcome !== 'rejected', outcome: decision.outcome, reason: decision.reason }));
  }

  return (req, res) => {
    if (req.method !== 'POST') return answer(res, { status: 405, outcome: 'rejected', reason: 'method must be POST' });
    const type = String(req.headers['content-type'] ?? '');
    if (!/^application\/json\b/i.test(type)) {
      req.resume();
      return answer(res, { status: 415, outcome: 'rejected', reason: 'content-type must be application/json' });
    }
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > maxBody) {
      req.resume();
      return answer(res, { status: 413, outcome: 'rejected', reason: `body over ${maxBody} bytes` });
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let aborted = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBody && !aborted) {
        aborted = true;
        answer(res, { status: 413, outcome: 'rejected', reason: `body over ${maxBody} bytes` });
        req.destroy();
        return;
      }
      if (!aborted) chunks.push(chunk);
    });
    req.on('error', () => { aborted = true; });
    req.on('end', () => {
      if (aborted) return;
      void handleBody(Buffer.concat(chunks), req, res);
    });
  };

  async function handleBody(raw: Buffer, req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (options.secret) {
      const header = req.headers[SIGNATURE_HEADER];
      if (!verifyWebhookSignature(raw, Array.isArray(header) ? header[0] : header, options.secret)) {
        return answer(res, { status: 401, outcome: 'rejected', reason: header ? 'signature does not match the body' : 'missing X-Service-Signature' });
      }
    }
    let payload;
    try {
      payload = parseWebhookPayload(raw);
    } catch (err) {
      return answer(res, { status: 400, outcome: 'rejected', reason: `malformed body: ${err instanceof Error ? err.message : String(err)}` });
    }
    const workflowId = (payload.metadata as Record<string, unknown> | undefined)?.workflowId;
    if (typeof workflowId !== 'string' || workflowId === '') {
      return answer(res, { status: 422, outcome: 'rejected', reason: 'metadata.workflowId is missing: this delivery names no workflow' });
    }
    if (!guard.firstSighting(payload.webhookId)) {
      return answer(res, { status: 409, outcome: 'rejected', reason: `webhookId ${payload.webhookId} was already delivered`, workflowId });
    }
    const base = { workflowId, jobId: payload.id, type: payload.type };
    if (!JOB_LEVEL.test(payload.type)) return answer(res, { ...base, status: 202, outcome: 'ignored', reason: 'page events are not signalled' });

    const signal = options.client.workflow
      .getHandle(workflowId)
      .signal(jobEventSignal, { jobId: payload.id, type: payload.type, webhookId: payload.webhookId });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((r) => { timer = setTimeout(() => r('timeout'), waitMs); });
    try {
      const result = await Promise.race([signal.then(() => 'ok' as const), timedOut]);
      if (result === 'timeout') {
        signal.catch((err: unknown) => log(`webhook signal to ${workflowId} failed late: ${String(err)}`));
        return answer(res, { ...base, status: 202, outcome: 'signalled', reason: 'signal still in flight' });
      }
      return answer(res, { ...base, status: 200, outcome: 'signalled', reason: 'signalled' });
    } catch (err) {
      // The workflow is gone or Temporal is down: acknowledge anyway (polling is the record),
      // but forget the id so a redelivery can try again.
      guard.forget(payload.webhookId);
      return answer(res, { ...base, status: 202, outcome: 'ignored', reason: `signal failed: ${err instanceof Error ? err.message : String(err)}` });
    } finally {
      clearTimeout(timer);
    }
  }
}

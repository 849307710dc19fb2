// Webhook receiver: checks the signature over the raw body (when a secret is configured),
// refuses malformed bodies, drops duplicates, then signals the workflow named in the webhook
// metadata. Every event kind of the hosted service is accepted (event-kinds.ts): job-level events
// of crawl, batch scrape, extract and agent jobs become signals; page-level ones (`*.page`,
// `agent.action`, `monitor.page`) and kinds added later are acknowledged and dropped, so history
// never grows with pages and a new kind never earns a retry storm. A service monitor's
// `monitor.check.completed` is recorded as a change-report run when `onMonitorCheck` is given.
// Answers fast: a slow Temporal never holds the delivery.
//
// Deliveries as users receive them (contract notes "Webhooks", "Observed on the open-source
// server"): the hosted service signs under `X-Firecrawl-Signature` and sends a `webhookId`;
// the reference (and our local service) signs under `X-Service-Signature`; the open-source
// server signs nothing and sends no `webhookId`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { parseWebhookPayload, verifyWebhookSignature, SIGNATURE_HEADERS } from 'webdata-client';
import { jobEventSignal } from '../workflows/definitions.js';
import { routeOf } from './event-kinds.js';
import { ReplayGuard, deliveryKey } from './replay-guard.js';

/** Accepted signature headers by default: the hosted service's, then the reference's. */
export const DEFAULT_SIGNATURE_HEADERS: readonly string[] = SIGNATURE_HEADERS;

export interface WebhookHandlerOptions {
  client: Client;
  /**
   * The team's HMAC secret. With a secret, every delivery must carry a valid signature
   * (unsigned or forged: 401). Without one, deliveries are accepted unauthenticated, as
   * hints: they only wake a workflow, whose poll stays the record (a forged delivery can
   * at most cause an early poll).
   */
  secret?: string;
  /** @deprecated No effect: without `secret` unsigned deliveries are always accepted as hints. */
  allowUnsigned?: boolean;
  /** Header names a signature is read from (case-insensitive); default `DEFAULT_SIGNATURE_HEADERS`. */
  signatureHeaders?: readonly string[];
  maxBodyBytes?: number;
  /** How long to wait for the signal before answering anyway (polling reconciles). */
  signalWaitMs?: number;
  replayGuard?: ReplayGuard;
  /** Receives rejections, late signal failures and the start-up line (default: the start-up warning goes to stderr). */
  log?: (line: string) => void;
  /** Observes every decision (tests, metrics). */
  onDecision?: (decision: WebhookDecision) => void;
  /**
   * Records a service monitor's finished check (e.g. `recordMonitorCheck` of the activities:
   * a run of the change-report series `webdata changes` reads). Without it such deliveries are
   * acknowledged and dropped. A failure answers 503, so the service delivers it again.
   */
  onMonitorCheck?: (check: MonitorCheckDelivery) => Promise<unknown>;
}

/** What a `monitor.check.completed` delivery names; `series` from the webhook metadata. */
export interface MonitorCheckDelivery {
  monitorId: string;
  checkId: string;
  status: string;
  series?: string;
}

export interface WebhookDecision {
  status: number;
  outcome: 'signalled' | 'recorded' | 'ignored' | 'rejected';
  reason: string;
  workflowId?: string;
  jobId?: string;
  type?: string;
  /** What duplicates are recognized by: `webhookId:<id>`, or `sha256:<hex of the body>`. */
  deliveryKey?: string;
}

type Delivery = ReturnType<typeof parseWebhookPayload>;

/** What a job-level delivery names, whatever its kind. */
interface JobEvent {
  type: string;
  jobId: string;
  webhookId?: string;
  workflowId?: string;
}

/**
 * The job a job-level delivery names, or why it names none. Crawl and batch scrape deliveries
 * were validated by `parseWebhookPayload`; extract and agent ones only need a job `id` here
 * (their `data` differs per kind and is not read: the workflow's poll reads the job).
 */
function jobEventOf(payload: Delivery): JobEvent | string {
  const p = payload as { id?: unknown; webhookId?: unknown; metadata?: unknown };
  if (typeof p.id !== 'string' || p.id === '') return `malformed ${payload.type}: id (the job id) is missing`;
  const metadata = p.metadata !== null && typeof p.metadata === 'object' ? (p.metadata as Record<string, unknown>) : {};
  return {
    type: payload.type,
    jobId: p.id,
    ...(typeof p.webhookId === 'string' && p.webhookId !== '' ? { webhookId: p.webhookId } : {}),
    ...(typeof metadata.workflowId === 'string' && metadata.workflowId !== '' ? { workflowId: metadata.workflowId } : {}),
  };
}

/** The workflow has ended (or never existed): a signal cannot reach it. */
function workflowEnded(err: unknown): boolean {
  return err instanceof WorkflowNotFoundError || (err instanceof Error && err.name === 'WorkflowNotFoundError');
}

/** The check a `monitor.check.completed` delivery names (`data[0]`), or why it names none. */
function monitorCheckOf(payload: Delivery): MonitorCheckDelivery | string {
  const p = payload as { data?: unknown; metadata?: Record<string, unknown> | null };
  const first: unknown = Array.isArray(p.data) ? p.data[0] : undefined;
  if (first === null || typeof first !== 'object') return 'data[0] is missing';
  const d = first as Record<string, unknown>;
  if (typeof d.monitorId !== 'string' || d.monitorId === '') return 'data[0].monitorId is missing';
  if (typeof d.checkId !== 'string' || d.checkId === '') return 'data[0].checkId is missing';
  const series = p.metadata?.series;
  return { monitorId: d.monitorId, checkId: d.checkId, status: String(d.status ?? ''), ...(typeof series === 'string' && series !== '' ? { series } : {}) };
}

export interface WebhookRequestHandler {
  (req: IncomingMessage, res: ServerResponse): void;
  /**
   * Resolves when every signal still in flight (deliveries already answered 202) has settled,
   * or after `timeoutMs` (default 10 s); returns how many were still unsettled then. Call it
   * before closing the Temporal connection, or those signals fail on the closed connection.
   */
  drain(timeoutMs?: number): Promise<number>;
}

/** An oversized body is read (and dropped) up to this many times the limit before its 413. */
const DRAIN_FACTOR = 16;

export function createWebhookHandler(options: WebhookHandlerOptions): WebhookRequestHandler {
  const maxBody = options.maxBodyBytes ?? 1024 * 1024;
  const waitMs = options.signalWaitMs ?? 2_000;
  const guard = options.replayGuard ?? new ReplayGuard();
  const log = options.log ?? (() => {});
  const headerNames = (options.signatureHeaders ?? DEFAULT_SIGNATURE_HEADERS).map((h) => h.toLowerCase());
  if (headerNames.length === 0) throw new Error('webhook receiver: signatureHeaders must name at least one header');
  const secret = options.secret || undefined;
  /** Signals whose delivery was already answered (they outlived `signalWaitMs`). */
  const inFlight = new Set<Promise<unknown>>();
  if (!secret) {
    (options.log ?? ((line: string) => process.stderr.write(`${line}\n`)))(
      'webhook receiver: no secret configured, deliveries are UNAUTHENTICATED; they are accepted only as hints that wake workflows (each workflow\'s poll stays the record)',
    );
  }

  function answer(res: ServerResponse, decision: WebhookDecision): void {
    options.onDecision?.(decision);
    if (decision.outcome === 'rejected') log(`webhook rejected (${decision.status}): ${decision.reason}`);
    res.writeHead(decision.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok: decision.outcome !== 'rejected', outcome: decision.outcome, reason: decision.reason }));
  }

  /** The signature headers present on the request, in the configured order. */
  function signatures(req: IncomingMessage): string[] {
    const found: string[] = [];
    for (const name of headerNames) {
      const value = req.headers[name];
      for (const v of Array.isArray(value) ? value : [value]) if (typeof v === 'string' && v !== '') found.push(v);
    }
    return found;
  }

  const handler = (req: IncomingMessage, res: ServerResponse): void => {
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
    const tooLarge = (): void => {
      res.setHeader('connection', 'close');
      answer(res, { status: 413, outcome: 'rejected', reason: `body over ${maxBody} bytes` });
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (aborted) return;
      if (size <= maxBody) {
        chunks.push(chunk);
        return;
      }
      // A body without a declared length (chunked) passed the limit. The 413 is answered once
      // the sender has finished: closing a socket with unread bytes resets it, and the client
      // lost the answer. Only a sender going on far past the limit is cut off without waiting.
      chunks.length = 0;
      if (size > maxBody * DRAIN_FACTOR && !res.headersSent) {
        aborted = true;
        tooLarge();
        req.destroy();
      }
    });
    req.on('error', () => { aborted = true; });
    req.on('end', () => {
      if (aborted) return;
      if (size > maxBody) return tooLarge();
      void handleBody(Buffer.concat(chunks), req, res);
    });
  };

  async function drain(timeoutMs = 10_000): Promise<number> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((r) => { timer = setTimeout(r, timeoutMs); });
    // Signals answered while draining join the set; loop until it is empty or time is up.
    let expired = false;
    void deadline.then(() => { expired = true; });
    while (inFlight.size > 0 && !expired) await Promise.race([Promise.allSettled([...inFlight]), deadline]);
    clearTimeout(timer);
    return inFlight.size;
  }

  return Object.assign(handler, { drain });

  async function recordMonitorCheck(payload: Delivery, raw: Buffer, res: ServerResponse, record: (c: MonitorCheckDelivery) => Promise<unknown>): Promise<void> {
    const check = monitorCheckOf(payload);
    const type = payload.type;
    if (typeof check === 'string') return answer(res, { status: 400, outcome: 'rejected', reason: `malformed monitor.check.completed: ${check}`, type });
    const key = deliveryKey(typeof payload.webhookId === 'string' ? payload.webhookId : undefined, raw);
    const base = { type, jobId: check.checkId, deliveryKey: key };
    if (!guard.firstSighting(key)) return answer(res, { ...base, status: 200, outcome: 'ignored', reason: 'duplicate delivery' });
    const work = record(check);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((r) => { timer = setTimeout(() => r('timeout'), waitMs); });
    try {
      if ((await Promise.race([work.then(() => 'ok' as const), timedOut])) === 'timeout') {
        // Still reading the check's pages: answer now; a late failure lets a redelivery try again.
        const late = work.catch((err: unknown) => {
          guard.forget(key);
          log(`monitor check ${check.checkId} not recorded: ${String(err)}`);
        }).finally(() => inFlight.delete(late));
        inFlight.add(late);
        return answer(res, { ...base, status: 202, outcome: 'recorded', reason: 'recording still in progress' });
      }
      return answer(res, { ...base, status: 200, outcome: 'recorded', reason: 'recorded as a change-report run' });
    } catch (err) {
      guard.forget(key);
      return answer(res, { ...base, status: 503, outcome: 'rejected', reason: `monitor check not recorded: ${err instanceof Error ? err.message : String(err)}` });
    } finally {
      clearTimeout(timer);
    }
  }

  async function handleBody(raw: Buffer, req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (secret) {
      const given = signatures(req);
      if (given.length === 0) {
        return answer(res, { status: 401, outcome: 'rejected', reason: `unsigned delivery: a signature is required (${headerNames.join(' or ')})` });
      }
      if (!given.some((header) => verifyWebhookSignature(raw, header, secret))) {
        return answer(res, { status: 401, outcome: 'rejected', reason: 'signature does not match the body' });
      }
    }
    let payload: Delivery;
    try {
      payload = parseWebhookPayload(raw);
    } catch (err) {
      return answer(res, { status: 400, outcome: 'rejected', reason: `malformed body: ${err instanceof Error ? err.message : String(err)}` });
    }
    const route = routeOf(payload.type);
    if (route === 'monitor-check' && options.onMonitorCheck) return recordMonitorCheck(payload, raw, res, options.onMonitorCheck);
    // Kinds we do not act on are acknowledged, never refused: a refusal only earns retries.
    if (route === undefined || route === 'monitor-check') {
      return answer(res, { status: 202, outcome: 'ignored', reason: `event kind ${payload.type} is not handled`, type: payload.type });
    }
    const event = jobEventOf(payload);
    // Page-level events are acknowledged whatever they name: a monitor's pages name no workflow.
    if (route === 'page') {
      const named = typeof event === 'string' ? {} : { jobId: event.jobId, ...(event.workflowId ? { workflowId: event.workflowId } : {}) };
      return answer(res, { ...named, type: payload.type, status: 202, outcome: 'ignored', reason: 'page events are not signalled' });
    }
    if (typeof event === 'string') return answer(res, { status: 400, outcome: 'rejected', reason: event, type: payload.type });
    const { workflowId } = event;
    if (workflowId === undefined) {
      return answer(res, { status: 422, outcome: 'rejected', reason: 'metadata.workflowId is missing: this delivery names no workflow' });
    }
    const base = { workflowId, jobId: event.jobId, type: payload.type };

    // Without a webhookId (open-source server) a repeated body is the same delivery.
    const key = deliveryKey(event.webhookId, raw);
    if (!guard.firstSighting(key)) {
      // Acknowledged: the hosted service redelivers on any non-2xx, so a refusal would only
      // bring the same delivery back for about 20 minutes.
      return answer(res, { ...base, deliveryKey: key, status: 200, outcome: 'ignored', reason: `duplicate delivery (${key.startsWith('webhookId:') ? 'same webhookId' : 'same body'})` });
    }

    const signal = options.client.workflow
      .getHandle(workflowId)
      .signal(jobEventSignal, event.webhookId === undefined
        ? { jobId: event.jobId, type: event.type }
        : { jobId: event.jobId, type: event.type, webhookId: event.webhookId });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((r) => { timer = setTimeout(() => r('timeout'), waitMs); });
    try {
      const result = await Promise.race([signal.then(() => 'ok' as const), timedOut]);
      if (result === 'timeout') {
        // A workflow that ended while its signal was on the way no longer needs it (its poll saw
        // the job's end): not a failure. Any other error is.
        const late = signal.catch((err: unknown) => log(workflowEnded(err)
          ? `webhook signal to ${workflowId} not needed: the workflow had already ended`
          : `webhook signal to ${workflowId} failed late: ${String(err)}`))
          .finally(() => inFlight.delete(late));
        inFlight.add(late);
        return answer(res, { ...base, deliveryKey: key, status: 202, outcome: 'signalled', reason: 'signal still in flight' });
      }
      return answer(res, { ...base, deliveryKey: key, status: 200, outcome: 'signalled', reason: 'signalled' });
    } catch (err) {
      // The workflow is gone or Temporal is down: acknowledge anyway (polling is the record),
      // but forget the delivery so a redelivery can try again.
      guard.forget(key);
      return answer(res, { ...base, deliveryKey: key, status: 202, outcome: 'ignored', reason: `signal failed: ${err instanceof Error ? err.message : String(err)}` });
    } finally {
      clearTimeout(timer);
    }
  }
}

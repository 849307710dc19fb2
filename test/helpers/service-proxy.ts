// A loopback proxy in front of the local service, for tests that must see (or hold, or refuse)
// what the worker sends: every request is recorded with its body as the service receives it,
// and a test's `intercept` may answer instead of the service (a transient 503) or make the
// request wait (to look at a run mid-way). Plus a worker whose client goes through it.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Worker } from '@temporalio/worker';
import { WebDataClient } from '../../packages/client/src/index.js';
import type { DevStack } from '../../src/cli/dev-stack.js';
import { createWebDataWorker } from '../../src/worker/worker.js';
import { pipelineWorkflowBundle } from './workflow-bundle.js';

export interface ProxiedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** Answer instead of the service, or undefined to forward (possibly after awaiting something). */
export type Intercept = (req: ProxiedRequest) => Promise<{ status: number; body: string; contentType?: string } | undefined> | undefined;

export interface ServiceProxy {
  url: string;
  requests: ProxiedRequest[];
  intercept: Intercept | undefined;
  /** JSON bodies of the requests to `METHOD /path` (exact path). */
  bodies(method: string, path: string): unknown[];
  close(): Promise<void>;
}

const HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

export async function startServiceProxy(target: string): Promise<ServiceProxy> {
  const proxy: ServiceProxy = {
    url: '',
    requests: [],
    intercept: undefined,
    bodies: (method, path) => proxy.requests.filter((r) => r.method === method && r.path === path).map((r) => JSON.parse(r.body.toString('utf8')) as unknown),
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const request: ProxiedRequest = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks) };
      proxy.requests.push(request);
      const answer = await proxy.intercept?.(request);
      if (answer) {
        res.writeHead(answer.status, { 'content-type': answer.contentType ?? 'application/json' });
        res.end(answer.body);
        return;
      }
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k, v]) => !HOP.has(k) && typeof v === 'string')) as Record<string, string>;
      const upstream = await fetch(`${target}${request.path}`, {
        method: request.method,
        headers,
        body: request.body.length > 0 ? new Uint8Array(request.body) : undefined,
      });
      const out = Buffer.from(await upstream.arrayBuffer());
      const back: Record<string, string> = {};
      upstream.headers.forEach((v, k) => {
        if (!HOP.has(k) && k !== 'content-encoding') back[k] = v;
      });
      res.writeHead(upstream.status, back);
      res.end(out);
    })().catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ success: false, error: `proxy: ${String(err)}` }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}

/** A worker on the stack's Temporal and store whose API client goes through `proxy`. */
export async function startProxiedWorker(stack: DevStack, proxy: ServiceProxy, taskQueue: string): Promise<{ worker: Worker; stop(): Promise<void> }> {
  const client = new WebDataClient({ apiKey: stack.service.apiKey, baseUrl: proxy.url });
  const worker = await createWebDataWorker({
    connection: stack.temporal.env.nativeConnection,
    namespace: stack.temporal.namespace,
    taskQueue,
    client,
    store: stack.store,
    workflowBundlePath: await pipelineWorkflowBundle(),
  });
  const running = worker.run();
  return {
    worker,
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await client.close();
    },
  };
}

// The HTTP endpoint: POST /runs {"url": ...} starts a run, GET /runs/:id answers its progress.
import { createServer } from 'node:http';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { PipelineInputError } from 'webdata-temporal';
import { readRun, startRun } from './runs.mjs';
import { settings } from './settings.mjs';

const connection = await Connection.connect({ address: settings.temporalAddress });
const client = new Client({ connection });

function answer(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function readJson(req) {
  let text = '';
  for await (const chunk of req) text += chunk;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

async function route(req, res) {
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  if (req.method === 'POST' && path === '/runs') {
    const body = await readJson(req);
    if (typeof body?.url !== 'string') return answer(res, 400, { error: 'url: required, a string (send {"url": "https://..."})' });
    return answer(res, 201, await startRun(client, settings.taskQueue, body.url));
  }
  const match = /^\/runs\/([^/]+)$/.exec(path);
  if (req.method === 'GET' && match) return answer(res, 200, await readRun(client, decodeURIComponent(match[1])));
  return answer(res, 404, { error: `no route ${req.method} ${path}` });
}

const server = createServer((req, res) => {
  route(req, res).catch((err) => {
    if (err instanceof PipelineInputError) return answer(res, 400, { error: err.message });
    if (err instanceof WorkflowNotFoundError) return answer(res, 404, { error: `no run ${err.workflowId}` });
    console.error(err);
    return answer(res, 500, { error: 'internal error' });
  });
});

server.listen(settings.port, '127.0.0.1', () => {
  console.log(`example backend: http://127.0.0.1:${server.address().port} (task queue ${settings.taskQueue})`);
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => server.close(() => void connection.close()));
}

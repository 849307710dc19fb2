// A tiny, deterministic OpenAI-compatible chat-completions server on loopback, for the json and
// summary scrape formats: its answers are derived from the request (the page text and the
// schema), so a test can tell which page and which schema a stored answer came from.
//   - summary requests (the system prompt asks to summarize): {"summary": "Summary of <url>: <first heading>"}
//   - json requests: {title, url, words} (first markdown heading, the page URL, its word count),
//     limited to the schema's properties when a schema is given.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Chat {
  model?: string;
  messages: Array<{ role: string; content: string }>;
}

export interface ModelServer {
  /** Base URL to put in LLM_BASE_URL (ends in /v1). */
  url: string;
  /** Every chat received, in order. */
  chats: Chat[];
  close(): Promise<void>;
}

interface Page {
  url: string;
  text: string;
}

function pageOf(chat: Chat): Page {
  const user = chat.messages.find((m) => m.role === 'user')?.content ?? '';
  const m = /<page url="([^"]*)">\n([\s\S]*)\n<\/page>/.exec(user);
  return { url: m?.[1] ?? '', text: m?.[2] ?? user };
}

function schemaOf(system: string): { properties?: Record<string, unknown> } | undefined {
  const m = /JSON schema:\n(.*)/.exec(system);
  if (!m) return undefined;
  try {
    return JSON.parse(m[1]) as { properties?: Record<string, unknown> };
  } catch {
    return undefined;
  }
}

/** The answer for one chat, as the model's message content (a JSON text). */
export function deterministicAnswer(chat: Chat): Record<string, unknown> {
  const system = chat.messages.find((m) => m.role === 'system')?.content ?? '';
  const page = pageOf(chat);
  const title = /^#{1,6}\s+(.+)$/m.exec(page.text)?.[1]?.trim() ?? '';
  if (/summari[sz]e/i.test(system)) return { summary: `Summary of ${page.url}: ${title}` };
  const all: Record<string, unknown> = { title, url: page.url, words: page.text.split(/\s+/).filter(Boolean).length };
  const props = schemaOf(system)?.properties;
  if (!props) return all;
  return Object.fromEntries(Object.keys(props).map((k) => [k, all[k] ?? null]));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts the model on 127.0.0.1 (a free port). `answer` replaces the deterministic one (e.g. to fail). */
export async function startModelServer(answer: (chat: Chat) => unknown = deterministicAnswer): Promise<ModelServer> {
  const chats: Chat[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    readBody(req).then((text) => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404).end();
        return;
      }
      const chat = JSON.parse(text) as Chat;
      chats.push(chat);
      const answered = answer(chat);
      const content = typeof answered === 'string' ? answered : JSON.stringify(answered);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content } }], usage: { total_tokens: 100 } }));
    }).catch(() => res.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    chats,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** Sets LLM_BASE_URL/LLM_MODEL for a service running in this process; returns the undo. */
export function useModel(url: string | undefined): () => void {
  const saved = { base: process.env.LLM_BASE_URL, model: process.env.LLM_MODEL };
  if (url === undefined) delete process.env.LLM_BASE_URL;
  else process.env.LLM_BASE_URL = url;
  process.env.LLM_MODEL = 'deterministic';
  return () => {
    if (saved.base === undefined) delete process.env.LLM_BASE_URL;
    else process.env.LLM_BASE_URL = saved.base;
    if (saved.model === undefined) delete process.env.LLM_MODEL;
    else process.env.LLM_MODEL = saved.model;
  };
}

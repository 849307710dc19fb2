// The Node process that runs a session's interact `node` code: one per session, holding a
// persistent vm context with a Playwright `page` bound to the session's current tab. The
// parent kills it on timeout; a fresh one (with a fresh context) starts on the next call.
import { Console } from 'node:console';
import { Writable } from 'node:stream';
import vm from 'node:vm';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { prepareNodeCode } from './node-code.js';

interface RunMessage { id: number; code: string; targetId: string }

let out = '';
let err = '';
let current = 0;
// Output is also streamed to the parent, so a run killed on timeout still reports it.
const sink = (which: 'out' | 'err') => new Writable({
  write(chunk: Buffer | string, _enc, cb) {
    const text = chunk.toString();
    if (which === 'out') out += text;
    else err += text;
    process.send?.({ output: current, stream: which, text });
    cb();
  },
});
const userConsole = new Console({ stdout: sink('out'), stderr: sink('err'), colorMode: false });

const endpoint = process.env.WEBDATA_CDP_ENDPOINT ?? '';
const browserReady = chromium.connectOverCDP(endpoint);
const targetIds = new WeakMap<Page, string>();

async function pageFor(context: BrowserContext, targetId: string): Promise<Page> {
  const pages = context.pages().filter((p) => !p.isClosed());
  for (const p of pages) {
    if (!targetIds.has(p)) {
      const cdp = await context.newCDPSession(p);
      const info = (await cdp.send('Target.getTargetInfo')) as { targetInfo: { targetId: string } };
      targetIds.set(p, info.targetInfo.targetId);
      await cdp.detach().catch(() => undefined);
    }
    if (targetIds.get(p) === targetId) return p;
  }
  return pages[pages.length - 1] ?? (await context.newPage());
}

const sandbox: Record<string, unknown> = {
  console: userConsole,
  setTimeout, clearTimeout, setInterval, clearInterval, setImmediate, clearImmediate, queueMicrotask,
  URL, URLSearchParams, TextEncoder, TextDecoder, Buffer, fetch, AbortController, structuredClone,
};
const context = vm.createContext(sandbox, { name: 'interact' });

function render(value: unknown): string | null {
  if (value === undefined) return null;
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

async function run(msg: RunMessage) {
  out = '';
  err = '';
  current = msg.id;
  try {
    const browser = await browserReady;
    const bctx = browser.contexts()[0];
    Object.assign(sandbox, { browser, context: bctx, page: await pageFor(bctx, msg.targetId) });
    const prepared = prepareNodeCode(msg.code);
    if (prepared.prelude) vm.runInContext(prepared.prelude, context, { filename: 'interact.js' });
    const value: unknown = await (vm.runInContext(prepared.body, context, { filename: 'interact.js' }) as Promise<unknown>);
    return { id: msg.id, stdout: out, stderr: err, result: render(value), exitCode: 0 };
  } catch (e) {
    const error = e instanceof Error ? e : new Error(String(e));
    err += `${error.stack ?? error.message}\n`;
    return { id: msg.id, stdout: out, stderr: err, result: null, exitCode: 1, error: `${error.name}: ${error.message}` };
  }
}

process.on('message', (msg: RunMessage) => {
  void run(msg).then((reply) => process.send?.(reply));
});
// Code that forgets a promise must not take the runner down between calls.
process.on('unhandledRejection', (reason) => { err += `Unhandled rejection: ${String(reason)}\n`; });
process.on('disconnect', () => process.exit(0));
// Ready once connected to the session's browser: the caller's timeout starts after this.
browserReady.then(
  () => process.send?.({ ready: true }),
  (e: unknown) => {
    process.stderr.write(`cannot connect to the session's browser: ${String(e)}\n`);
    process.exit(1);
  },
);

// The sessions' own loopback server: the DevTools proxy behind `cdpUrl` and the live views.
// Every URL carries the session id and a capability token, so the gateway can refuse a
// destroyed or unknown session and count proxied CDP traffic as session activity.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { timingSafeEqual } from 'node:crypto';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { LiveView } from './live-view.js';
import { liveViewPage } from './live-view-page.js';
import type { BrowserSession } from './session.js';

/** What the gateway needs from the manager (kept narrow to avoid an import cycle). */
export interface SessionLookup {
  get(id: string): BrowserSession | undefined;
  now(): number;
}

const CDP_PATH = /^\/cdp\/([\w-]+)\/([\w-]+)(\/.*)?$/;
const LIVE_PATH = /^\/live\/([\w-]+)(\/ws|\/frame\.jpg)?$/;

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export class SessionGateway {
  private readonly server: Server;
  private readonly wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
  private readonly sockets = new Map<string, Set<WebSocket>>();
  private readonly liveViews = new Map<string, LiveView>();
  private listening?: Promise<void>;
  private port = 0;

  constructor(private readonly sessions: SessionLookup) {
    this.server = createServer((req, res) => {
      this.handleHttp(req, res).catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ success: false, error: `browser gateway: ${(err as Error).message}` }));
      });
    });
    this.server.on('upgrade', (req, socket, head) => this.handleUpgrade(req, socket, head));
  }

  ready(): Promise<void> {
    this.listening ??= new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => {
        this.port = (this.server.address() as { port: number }).port;
        resolve();
      });
    });
    return this.listening;
  }

  urls(s: BrowserSession): { cdpUrl: string; liveViewUrl: string; interactiveLiveViewUrl: string } {
    const origin = `127.0.0.1:${this.port}`;
    return {
      cdpUrl: `ws://${origin}/cdp/${s.id}/${s.tokens.cdp}`,
      liveViewUrl: `http://${origin}/live/${s.id}?token=${s.tokens.view}`,
      interactiveLiveViewUrl: `http://${origin}/live/${s.id}?token=${s.tokens.control}`,
    };
  }

  /** Closes every proxied socket and viewer of a session (it was destroyed). */
  disconnect(sessionId: string): void {
    for (const ws of this.sockets.get(sessionId) ?? []) ws.terminate();
    this.sockets.delete(sessionId);
    const live = this.liveViews.get(sessionId);
    this.liveViews.delete(sessionId);
    live?.close().catch(() => undefined);
  }

  private track(sessionId: string, ws: WebSocket): void {
    let set = this.sockets.get(sessionId);
    if (!set) this.sockets.set(sessionId, (set = new Set()));
    set.add(ws);
    ws.once('close', () => set.delete(ws));
  }

  private activeSession(id: string): BrowserSession | undefined {
    const s = this.sessions.get(id);
    return s?.active ? s : undefined;
  }

  /** Resolves the live-view token: interactive when it is the control token. */
  private viewAccess(s: BrowserSession, token: string | null): 'view' | 'control' | undefined {
    if (!token) return undefined;
    if (sameToken(token, s.tokens.control)) return 'control';
    if (sameToken(token, s.tokens.view)) return 'view';
    return undefined;
  }

  private async handleHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://gateway');
    const cdp = CDP_PATH.exec(url.pathname);
    if (cdp) {
      const [, id, tok, rest = ''] = cdp;
      const s = this.activeSession(id);
      if (!s || !sameToken(tok, s.tokens.cdp)) return json(res, s ? 403 : 404, { success: false, error: s ? 'Invalid session token' : 'Browser session not found or destroyed' });
      if (!/^\/json(\/(version|list|protocol))?\/?$/.test(rest)) return json(res, 404, { success: false, error: 'Not found' });
      s.touch(this.sessions.now());
      // DevTools discovery, with every endpoint rewritten to go through this proxy.
      const upstream = await fetch(`http://127.0.0.1:${s.chromiumProcess.port}${rest}`);
      const body = (await upstream.text()).replaceAll(`127.0.0.1:${s.chromiumProcess.port}`, `127.0.0.1:${this.port}/cdp/${id}/${tok}`);
      res.writeHead(upstream.status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(body);
      return;
    }
    const live = LIVE_PATH.exec(url.pathname);
    if (live && req.method === 'GET') {
      const [, id, sub] = live;
      const s = this.sessions.get(id);
      const access = s ? this.viewAccess(s, url.searchParams.get('token')) : undefined;
      if (!s || !access) return json(res, 404, { success: false, error: 'Browser session not found' });
      if (!s.active) return html(res, 410, '<!doctype html><title>Session ended</title><p>This browser session has ended.</p>');
      if (sub === '/frame.jpg') {
        const page = await s.currentPage();
        const jpg = await page.screenshot({ type: 'jpeg', quality: 85 });
        res.writeHead(200, { 'content-type': 'image/jpeg', 'cache-control': 'no-store' });
        res.end(jpg);
        return;
      }
      const token = url.searchParams.get('token') ?? '';
      return html(res, 200, liveViewPage({
        sessionId: id,
        wsPath: `/live/${id}/ws?token=${encodeURIComponent(token)}`,
        interactive: access === 'control',
        streaming: s.streamWebView,
      }));
    }
    json(res, 404, { success: false, error: 'Not found' });
  }

  private handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    // A client that resets the connection mid-handshake must not raise an unhandled error.
    socket.on('error', () => socket.destroy());
    const url = new URL(req.url ?? '/', 'http://gateway');
    const refuse = (status: number, text: string) => {
      socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    const cdp = CDP_PATH.exec(url.pathname);
    if (cdp) {
      const [, id, tok, rest = ''] = cdp;
      const s = this.activeSession(id);
      if (!s) return refuse(404, 'Not Found');
      if (!sameToken(tok, s.tokens.cdp)) return refuse(403, 'Forbidden');
      if (rest && !rest.startsWith('/devtools/')) return refuse(404, 'Not Found');
      const target = rest ? `ws://127.0.0.1:${s.chromiumProcess.port}${rest}` : s.chromiumProcess.wsEndpoint;
      this.wss.handleUpgrade(req, socket, head, (client) => this.pipeCdp(s, client, target));
      return;
    }
    const live = LIVE_PATH.exec(url.pathname);
    if (live && live[2] === '/ws') {
      const s = this.activeSession(live[1]);
      const access = s ? this.viewAccess(s, url.searchParams.get('token')) : undefined;
      if (!s || !access) return refuse(404, 'Not Found');
      if (!s.streamWebView) return refuse(403, 'Forbidden');
      this.wss.handleUpgrade(req, socket, head, (client) => {
        this.track(s.id, client);
        let view = this.liveViews.get(s.id);
        if (!view) {
          view = new LiveView(s, () => s.touch(this.sessions.now()));
          this.liveViews.set(s.id, view);
        }
        view.add(client, access === 'control');
      });
      return;
    }
    refuse(404, 'Not Found');
  }

  /** Pipes one client to Chromium, frame for frame; every message is session activity. */
  private pipeCdp(s: BrowserSession, client: WebSocket, target: string): void {
    this.track(s.id, client);
    const upstream = new WebSocket(target, { perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
    this.track(s.id, upstream);
    const pending: Array<[RawData, boolean]> = [];
    const touch = () => s.touch(this.sessions.now());
    client.on('message', (data, isBinary) => {
      touch();
      if (upstream.readyState === WebSocket.OPEN) upstream.send(data, { binary: isBinary });
      else pending.push([data, isBinary]);
    });
    upstream.on('open', () => {
      for (const [data, isBinary] of pending.splice(0)) upstream.send(data, { binary: isBinary });
    });
    upstream.on('message', (data, isBinary) => {
      touch();
      if (client.readyState === WebSocket.OPEN) client.send(data, { binary: isBinary });
    });
    const closeBoth = () => {
      if (client.readyState !== WebSocket.CLOSED) client.terminate();
      if (upstream.readyState !== WebSocket.CLOSED) upstream.terminate();
    };
    client.on('close', closeBoth);
    upstream.on('close', closeBoth);
    client.on('error', closeBoth);
    upstream.on('error', closeBoth);
  }

  async close(): Promise<void> {
    for (const id of [...this.sockets.keys()]) this.disconnect(id);
    this.wss.close();
    if (this.listening) {
      this.server.closeAllConnections();
      await new Promise<void>((resolve) => this.server.close(() => resolve()));
    }
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

function html(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(body);
}

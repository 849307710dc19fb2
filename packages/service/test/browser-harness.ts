// Test harness for the browser and interact routes: the local service (startLocalService,
// every route module, the real scrape engines) with test teams and a clock tests can move,
// plus a fixture site (pages that record clicks, set cookies, render late, show the UA).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startLocalService } from '../src/app.js';
import type { ScrapeRecord } from '../src/core/scrape.js';
import type { ServiceContext } from '../src/core/service.js';
import type { TeamConfig } from '../src/core/teams.js';
import { silentLogger } from '../src/http/logger.js';

export function team(id: string, over: Partial<TeamConfig> = {}): TeamConfig {
  return {
    id,
    apiKeys: [`key-${id}`],
    credits: 10_000,
    rateLimits: {},
    concurrency: 4,
    maxBrowserSessions: 3,
    features: { ignoreRobotsTxt: false, zeroDataRetention: true, searchEnterprise: [] },
    ...over,
  };
}

export interface Harness {
  baseUrl: string;
  ctx: ServiceContext;
  ledger: { remaining(teamId: string): number };
  /** Adds `ms` to the service clock (lifetimes are checked against ctx.now()). */
  advance(ms: number): void;
  call(method: string, path: string, body?: unknown, apiKey?: string): Promise<{ status: number; body: Record<string, unknown> }>;
  close(): Promise<void>;
}

export async function startHarness(teams: TeamConfig[] = [team('t1'), team('t2')]): Promise<Harness> {
  let offset = 0;
  const service = await startLocalService({ teams, site: false, now: () => Date.now() + offset, logger: silentLogger });
  return {
    baseUrl: service.url,
    ctx: service.context,
    ledger: service.ledger,
    advance: (ms) => { offset += ms; },
    async call(method, path, body, apiKey = teams[0].apiKeys[0]) {
      const res = await fetch(service.url + path, {
        method,
        headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    },
    close: () => service.close(),
  };
}

/** A scrape record as the scrape routes store it (interact replays its options). */
export function scrapeRecord(id: string, teamId: string, url: string, options: Record<string, unknown> = {}, over: Partial<ScrapeRecord> = {}): ScrapeRecord {
  const now = Date.now();
  return {
    id, teamId, apiKey: `key-${teamId}`, url, options: { url, ...options },
    document: { markdown: '', metadata: { sourceURL: url, url, statusCode: 200, scrapeId: id } },
    createdAt: now, expiresAt: now + 3_600_000, zeroDataRetention: false, ...over,
  };
}

const PAGES: Record<string, string> = {
  '/': '<!doctype html><title>Fixture home</title><h1>Fixture home</h1>',
  // Big solid blocks so a JPEG live-view frame can be compared with a PNG screenshot.
  '/blocks': `<!doctype html><title>Blocks</title><style>body{margin:0}div{height:200px}</style>
    <div style="background:#d22"></div><div style="background:#2a2"></div><div style="background:#22d"></div><div style="background:#ee2"></div>`,
  '/clicks': `<!doctype html><title>Clicks</title><style>body{margin:0}#pad{width:100vw;height:100vh;background:#eee}</style>
    <div id="pad"></div><script>window.clicks=[];document.addEventListener('click',e=>{window.clicks.push([e.clientX,e.clientY]);document.title='clicks:'+window.clicks.length;});
    document.addEventListener('keydown',e=>{document.body.dataset.keys=(document.body.dataset.keys||'')+e.key;});</script>`,
  '/set-cookie': '<!doctype html><title>cookie</title><script>localStorage.setItem("fav","blue")</script>set',
  '/show-cookie': '<!doctype html><title>show</title><p id="c"></p><script>document.getElementById("c").textContent=document.cookie+"|"+localStorage.getItem("fav")</script>',
  '/shop/catalog': `<!doctype html><title>Catalog</title><ul id="items"><li>Item 1</li><li>Item 2</li></ul>
    <button id="load-more">Load more</button><script>
    document.getElementById('load-more').addEventListener('click', async () => {
      const r = await fetch('/api/items?page=2'); const items = await r.json();
      for (const it of items) { const li = document.createElement('li'); li.textContent = it; document.getElementById('items').appendChild(li); }
    });</script>`,
  '/app/spa': `<!doctype html><html><head><title>SPA</title><meta name="webdata:render" content="javascript"></head>
    <body><div id="root"></div><script>setTimeout(()=>{document.getElementById('root').innerHTML='<h1>Rendered by JS</h1><p>client side content</p>';document.title='SPA ready';},150)</script></body></html>`,
  '/ua': '<!doctype html><meta name="viewport" content="width=device-width"><title>ua</title><p id="ua"></p><script>document.getElementById("ua").textContent=navigator.userAgent+"|"+innerWidth+"|"+navigator.language+"|"+Intl.DateTimeFormat().resolvedOptions().timeZone</script>',
  '/form': '<!doctype html><title>form</title><input id="q"><p id="out"></p><script>document.getElementById("q").addEventListener("keydown",e=>{if(e.key==="Enter")document.getElementById("out").textContent="searched:"+e.target.value})</script>',
  '/late': '<!doctype html><title>late</title><div id="box"></div><script>setTimeout(()=>{document.getElementById("box").innerHTML="<p id=late>late content</p>"},2500)</script>',
  '/ads': '<!doctype html><title>ads</title><p>content</p><img id="ad" src="http://doubleclick.net/ad.png"><script>window.adLoaded=false</script>',
};

export async function startFixtureSite(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/set-cookie') res.setHeader('set-cookie', ['session=abc123; Path=/; Max-Age=3600', 'temp=1; Path=/']);
    if (url.pathname === '/api/items') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(['Item 3', 'Item 4']));
      return;
    }
    const page = PAGES[url.pathname];
    res.writeHead(page ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page ?? '<!doctype html><title>404</title>not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

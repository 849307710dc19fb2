// The rich site: /p/1 .. /p/N, each about 15 KB of sections with a table, a nested list, a code
// block, a quote, an image and links to nearby pages; the home page links to every page.
// Pages are rendered once up front, so serving them costs what serving a file would.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const WORDS = 'alpha beta gamma delta epsilon zeta theta kappa lambda sigma omega river stone cloud data node queue worker scrape crawl index page table list code'.split(' ');

function richPage(n: number, total: number): string {
  let seed = (n * 7919 + 13) >>> 0;
  const rnd = () => (seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32;
  const word = () => WORDS[Math.floor(rnd() * WORDS.length)];
  const words = (k: number) => Array.from({ length: k }, word).join(' ');
  const link = (i: number) => `<a href="/p/${((n + i - 1) % total) + 1}">${words(2)}</a>`;
  const para = () => `<p>${words(12)} <strong>${words(2)}</strong>, ${words(8)} <em>${words(2)}</em> ${link(1 + Math.floor(rnd() * 20))} ${words(10)} <code>${word()}()</code> &amp; ${words(6)}.</p>`;
  const parts = [`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Rich page ${n}</title>`,
    `<meta name="description" content="${words(10)}"><link rel="canonical" href="/p/${n}"></head><body>`,
    `<header class="site-header"><nav><a href="/">Home</a> <a href="/p/1">First</a> <a href="/p/${total}">Last</a></nav></header>`,
    `<main><article><h1>Rich page ${n}</h1>`];
  for (let s = 1; s <= 5; s++) {
    parts.push(`<h2>Section ${s}: ${words(3)}</h2>`, para(), para(), '<table><thead><tr><th>Name</th><th>Value</th><th>Unit</th><th>Note</th></tr></thead><tbody>');
    for (let i = 1; i <= 8; i++) parts.push(`<tr><td>${word()}</td><td>${Math.floor(rnd() * 1000)}</td><td>${word()}</td><td>${words(3)} ${link(i)}</td></tr>`);
    parts.push('</tbody></table><ul>');
    for (let i = 1; i <= 4; i++) parts.push(`<li>${words(4)} ${link(s * 4 + i)}<ol><li>${words(3)}</li><li><em>${words(2)}</em> ${words(2)}</li></ol></li>`);
    parts.push('</ul>', `<pre><code class="language-ts">const ${word()} = await fetch("/p/${n}");\nfor (const x of ${word()}) {\n  if (x &lt; 3) console.log(x * 2);\n}\n</code></pre>`,
      `<blockquote><p>${words(14)}</p></blockquote>`, `<p><img src="/img/${n}-${s}.png" alt="${words(2)}"> ${words(8)}</p>`, para());
  }
  parts.push(`</article></main><footer class="site-footer"><p>Footer ${words(4)}</p></footer></body></html>`);
  return parts.join('\n');
}

export async function startRichSite(total: number): Promise<{ url: string; pageBytes: number; close: () => Promise<void> }> {
  const pages = Array.from({ length: total }, (_, i) => Buffer.from(richPage(i + 1, total)));
  const list = Array.from({ length: total }, (_, i) => `<li><a href="/p/${i + 1}">Rich page ${i + 1}</a></li>`).join('');
  const home = Buffer.from(`<!doctype html><html><head><title>Rich site</title></head><body><main><h1>Rich site</h1><ul>${list}</ul></main></body></html>`);
  const server = createServer((req, res) => {
    const n = /^\/p\/(\d+)$/.exec(req.url ?? '')?.[1];
    const body = req.url === '/' ? home : n && Number(n) >= 1 && Number(n) <= total ? pages[Number(n) - 1] : null;
    if (!body) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const pageBytes = pages.reduce((sum, p) => sum + p.length, 0) / total;
  return {
    url: `http://127.0.0.1:${port}`,
    pageBytes,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

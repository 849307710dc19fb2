// The live-view HTML page: shows the session's screencast frames pushed over a WebSocket
// and, when interactive, forwards clicks, wheel and keys back to the session.
export function liveViewPage(opts: { sessionId: string; wsPath: string; interactive: boolean; streaming: boolean }): string {
  const config = JSON.stringify(opts).replace(/</g, '\\u003c');
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>Browser session ${opts.sessionId.replace(/[^\w-]/g, '')}</title>
<style>
html,body{margin:0;height:100%;background:#111;color:#ccc;font:13px system-ui,sans-serif}
#bar{position:fixed;top:0;left:0;right:0;padding:4px 8px;background:rgba(0,0,0,.6);z-index:1}
#screen{display:block;margin:0 auto;max-width:100%;max-height:100vh;outline:none}
</style></head>
<body><div id="bar">connecting…</div><img id="screen" alt="session screen" tabindex="0">
<script>
const cfg = ${config};
const img = document.getElementById('screen');
const bar = document.getElementById('bar');
let frames = 0;
if (!cfg.streaming) { bar.textContent = 'live view is not streamed for this session (streamWebView: false)'; }
else {
  const ws = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + cfg.wsPath);
  ws.onopen = () => { bar.textContent = cfg.interactive ? 'live (interactive)' : 'live (view only)'; };
  ws.onclose = () => { bar.textContent = 'session ended'; };
  ws.onmessage = (ev) => {
    const msg = JSON.parse(ev.data);
    if (msg.type === 'frame') { img.src = 'data:image/jpeg;base64,' + msg.data; frames++; document.body.dataset.frames = String(frames); }
  };
  if (cfg.interactive) {
    const send = (m) => { if (ws.readyState === 1) ws.send(JSON.stringify(m)); };
    const frac = (e) => { const r = img.getBoundingClientRect(); return { x: (e.clientX - r.left) / r.width, y: (e.clientY - r.top) / r.height }; };
    img.addEventListener('click', (e) => { e.preventDefault(); img.focus(); send({ type: 'click', ...frac(e), button: 'left' }); });
    img.addEventListener('contextmenu', (e) => { e.preventDefault(); send({ type: 'click', ...frac(e), button: 'right' }); });
    img.addEventListener('wheel', (e) => { e.preventDefault(); send({ type: 'wheel', ...frac(e), deltaX: e.deltaX, deltaY: e.deltaY }); }, { passive: false });
    document.addEventListener('keydown', (e) => { if (e.ctrlKey || e.metaKey) return; e.preventDefault(); send({ type: 'key', key: e.key }); });
    document.addEventListener('paste', (e) => { const t = e.clipboardData && e.clipboardData.getData('text'); if (t) send({ type: 'text', text: t }); });
  }
}
</script></body></html>`;
}

// Writing answers: JSON (or raw bytes when a handler sets its own content type).
import type { ServerResponse } from 'node:http';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const contentType = Object.entries(headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1];
  const raw = contentType && !contentType.includes('json') && (typeof body === 'string' || Buffer.isBuffer(body));
  const payload = raw ? Buffer.from(body) : Buffer.from(JSON.stringify(body ?? {}), 'utf8');
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  if (!raw) res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', payload.length);
  res.statusCode = status;
  res.end(payload);
}

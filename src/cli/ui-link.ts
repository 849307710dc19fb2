// The Temporal Web UI of the server the CLI talks to: TEMPORAL_UI_URL, else the one a running
// `webdata dev` recorded for its address (a small file in the temp folder, removed when it stops).
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function recordFile(address: string): string {
  const host = address.replace(/^localhost:/, '127.0.0.1:').replace(/[^A-Za-z0-9.-]/g, '_');
  return join(tmpdir(), `webdata-dev-${host}.json`);
}

export function recordDevUi(address: string, uiUrl: string): () => void {
  const file = recordFile(address);
  try {
    writeFileSync(file, JSON.stringify({ address, uiUrl, pid: process.pid }));
  } catch {
    return () => {};
  }
  return () => rmSync(file, { force: true });
}

export function temporalUiUrl(address: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const fromEnv = env.TEMPORAL_UI_URL?.trim();
  if (fromEnv) return fromEnv.replace(/\/+$/, '');
  try {
    const record = JSON.parse(readFileSync(recordFile(address), 'utf8')) as { uiUrl?: string; pid?: number };
    if (!record.uiUrl) return undefined;
    if (record.pid) process.kill(record.pid, 0); // throws when that `webdata dev` is gone
    return record.uiUrl;
  } catch {
    return undefined;
  }
}

export function runLink(uiUrl: string, namespace: string, workflowId: string): string {
  return `${uiUrl}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;
}

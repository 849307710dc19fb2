// Records a finished run's history for the replay tests (RECORD_HISTORIES=1 npm test).
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';

export const HISTORIES_DIR = fileURLToPath(new URL('../replay/histories/', import.meta.url));

export async function recordHistory(client: Client, workflowId: string, name: string): Promise<void> {
  if (process.env.RECORD_HISTORIES !== '1') return;
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  writeFileSync(`${HISTORIES_DIR}${name}.json`, historyToJSON(history));
}

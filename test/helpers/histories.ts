// Records a finished run's history for the replay tests (RECORD_HISTORIES=1), as binary
// protobuf: the server's own encoding, independent of JSON mapping details.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';

const { temporal } = proto;

export const HISTORIES_DIR = fileURLToPath(new URL('../replay/histories/', import.meta.url));
/**
 * Histories recorded by 0.x workers (with its patch markers): 1.0 cannot replay the pipeline's, so
 * they replay against the bundle of the last 0.x commit (test/replay/replay.test.ts), as the 0.x
 * deployment kept for such runs does.
 */
export const HISTORIES_0X_DIR = fileURLToPath(new URL('../replay/histories-0.x/', import.meta.url));
export const HISTORY_EXTENSION = '.binpb';

export async function recordHistory(client: Client, workflowId: string, name: string): Promise<void> {
  if (process.env.RECORD_HISTORIES !== '1') return;
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  writeFileSync(`${HISTORIES_DIR}${name}${HISTORY_EXTENSION}`, temporal.api.history.v1.History.encode(history).finish());
}

export function decodeHistory(bytes: Uint8Array): proto.temporal.api.history.v1.History {
  return temporal.api.history.v1.History.decode(bytes);
}

import { parseArgs } from 'node:util';
import { cancelPipeline, getProgress } from '../../client/pipeline.js';
import { connectClient } from '../connect.js';
import { renderProgress } from '../progress-view.js';

export async function statusCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { json: { type: 'boolean' } } });
  const id = positionals[0];
  if (!id) {
    console.error('webdata status: a workflow id is required');
    return 2;
  }
  const { client, close } = await connectClient();
  try {
    const progress = await getProgress(client, id);
    console.log(values.json ? JSON.stringify(progress) : renderProgress(progress).join('\n'));
    return 0;
  } finally {
    await close();
  }
}

export async function cancelCommand(argv: string[]): Promise<number> {
  const id = argv[0];
  if (!id) {
    console.error('webdata cancel: a workflow id is required');
    return 2;
  }
  const { client, close } = await connectClient();
  try {
    await cancelPipeline(client, id);
    console.log(`cancellation requested for ${id}: running jobs are cancelled and browser sessions stopped`);
    return 0;
  } finally {
    await close();
  }
}

import { parseArgs } from 'node:util';
import { deleteSchedule, listSchedules, pauseSchedule, schedulePipeline, unpauseSchedule, type OverlapPolicy } from '../../client/schedules.js';
import { connectClient } from '../connect.js';
import { inputFromFlags, runFlags } from '../run-options.js';

const USAGE = 'usage: webdata schedule create <id> <url> (--cron "0 3 * * *" | --every 6h) [--overlap skip] [run options] | list | pause <id> | unpause <id> | delete <id>';

export async function scheduleCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const { client, close } = await connectClient();
  try {
    switch (sub) {
      case 'create': {
        const { values, positionals } = parseArgs({
          args: rest,
          allowPositionals: true,
          options: { ...runFlags, cron: { type: 'string' }, every: { type: 'string' }, overlap: { type: 'string' }, paused: { type: 'boolean' } },
        });
        const [id, url] = positionals;
        if (!id || !url) {
          console.error(USAGE);
          return 2;
        }
        const scheduleId = await schedulePipeline(client, inputFromFlags(url, values), {
          scheduleId: id,
          cron: values.cron,
          every: values.every,
          overlap: values.overlap as OverlapPolicy | undefined,
          taskQueue: values['task-queue'],
          paused: values.paused,
        });
        console.log(`schedule ${scheduleId} created`);
        return 0;
      }
      case 'list':
        for (const s of await listSchedules(client)) {
          const next = s.info?.nextActionTimes?.[0]?.toISOString() ?? '-';
          console.log(`${s.scheduleId}\t${s.state?.paused ? 'paused' : 'active'}\tnext ${next}`);
        }
        return 0;
      case 'pause':
      case 'unpause':
      case 'delete': {
        const id = rest[0];
        if (!id) {
          console.error(USAGE);
          return 2;
        }
        if (sub === 'pause') await pauseSchedule(client, id);
        else if (sub === 'unpause') await unpauseSchedule(client, id);
        else await deleteSchedule(client, id);
        console.log(`schedule ${id}: ${sub}d`);
        return 0;
      }
      default:
        console.error(USAGE);
        return 2;
    }
  } finally {
    await close();
  }
}

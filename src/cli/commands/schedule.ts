import { parseArgs } from 'node:util';
import { isGrpcServiceError, ScheduleAlreadyRunning } from '@temporalio/client';
import { deleteSchedule, listSchedules, pauseSchedule, schedulePipeline, triggerSchedule, unpauseSchedule, type OverlapPolicy } from '../../client/schedules.js';
import { connectClient, type CliConnection } from '../connect.js';
import { oneLine, UsageError } from '../errors.js';
import { scheduleRunFlags } from '../run-flags.js';
import { validatedInput } from '../run-options.js';

const USAGE = 'webdata schedule create <id> <url> (--cron "0 3 * * *" | --every 6h) [--overlap skip] [--changes-webhook URL | --no-changes] [run options] | list | trigger <id> | pause <id> | unpause <id> | delete <id> (see webdata schedule --help)';
const OVERLAPS: OverlapPolicy[] = ['skip', 'buffer_one', 'buffer_all', 'cancel_other', 'terminate_other', 'allow_all'];
// What Temporal's interval parser (the `ms` format) accepts: a number and a unit.
const EVERY = /^\d+(\.\d+)?\s*(milliseconds?|msecs?|ms|seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d|weeks?|w|years?|yrs?|y)$/i;

type Action = (conn: CliConnection) => Promise<number>;

/** The action, or 0 when --dry-run printed the input (nothing to connect for). */
function parseCreate(rest: string[]): Action | 0 {
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      ...scheduleRunFlags, cron: { type: 'string' }, every: { type: 'string' }, overlap: { type: 'string' }, paused: { type: 'boolean' },
      'no-changes': { type: 'boolean' }, 'changes-webhook': { type: 'string' },
    },
  });
  const [id, url, ...extra] = positionals;
  if (!id || !url || extra.length) throw new UsageError(`create needs <id> <url>${extra.length ? `, got extra "${extra.join(' ')}"` : ''}: ${USAGE}`);
  if ((values.cron === undefined) === (values.every === undefined)) throw new UsageError('create needs exactly one of --cron "0 3 * * *" or --every 6h');
  if (values.every !== undefined && (!EVERY.test(values.every.trim()) || parseFloat(values.every) <= 0)) {
    throw new UsageError(`--every: "${values.every}" is not an interval: use a number and a unit, e.g. 30m, 6h, 1d, "90 seconds"`);
  }
  if (values.cron !== undefined && values.cron.trim().split(/\s+/).length < 5 && !values.cron.trim().startsWith('@')) {
    throw new UsageError(`--cron: "${values.cron}" is not a cron expression: five fields (minute hour day-of-month month day-of-week), e.g. "0 3 * * *"`);
  }
  if (values.overlap !== undefined && !(OVERLAPS as string[]).includes(values.overlap)) {
    throw new UsageError(`--overlap: unknown policy "${values.overlap}" (policies: ${OVERLAPS.join(', ')})`);
  }
  if (values['no-changes'] && values['changes-webhook'] !== undefined) throw new UsageError('--changes-webhook and --no-changes exclude each other');
  // Runs of a schedule report what changed since its previous completed run (series = the id).
  const changes = values['no-changes'] ? {} : { changes: { series: id, ...(values['changes-webhook'] !== undefined ? { webhookUrl: values['changes-webhook'] } : {}) } };
  const input = validatedInput(url, values, changes);
  if (values['dry-run']) {
    console.log(JSON.stringify(input, null, 2));
    return 0;
  }
  return async ({ client }) => {
    try {
      await schedulePipeline(client, input, {
        scheduleId: id,
        cron: values.cron,
        every: values.every,
        overlap: values.overlap as OverlapPolicy | undefined,
        taskQueue: values['task-queue'],
        paused: values.paused,
        trackChanges: !values['no-changes'],
      });
    } catch (err) {
      if (err instanceof ScheduleAlreadyRunning) throw err; // explained in errors.ts
      // The spec is checked by Temporal: a refused one (INVALID_ARGUMENT) or a duration the SDK
      // cannot parse is a usage error of the flag that gave it.
      const refused = isGrpcServiceError(err) ? err.code === 3 : err instanceof TypeError || /cron|duration|range|interval/i.test((err as Error).message ?? '');
      if (refused) {
        const why = oneLine((isGrpcServiceError(err) && err.details) || (err as Error).message);
        throw new UsageError(values.cron !== undefined
          ? `--cron: Temporal refused "${values.cron}": ${why} (five fields: minute hour day-of-month month day-of-week, e.g. "0 3 * * *")`
          : `--every: Temporal refused "${values.every}": ${why} (use e.g. 30m, 6h, 1d)`, { cause: err });
      }
      throw err;
    }
    console.log(`schedule ${id} created`);
    return 0;
  };
}

function parseOne(sub: 'pause' | 'unpause' | 'delete' | 'trigger', rest: string[]): Action {
  const { positionals } = parseArgs({ args: rest, allowPositionals: true, options: {} });
  if (positionals.length !== 1) throw new UsageError(`${sub} needs one schedule id: webdata schedule ${sub} <id>`);
  const id = positionals[0];
  return async ({ client }) => {
    // An unknown id (ScheduleNotFoundError) is explained in errors.ts.
    if (sub === 'trigger') {
      console.log(`schedule ${id}: started ${await triggerSchedule(client, id)}`);
      return 0;
    }
    if (sub === 'pause') await pauseSchedule(client, id);
    else if (sub === 'unpause') await unpauseSchedule(client, id);
    else await deleteSchedule(client, id);
    console.log(`schedule ${id}: ${sub}d`);
    return 0;
  };
}

export async function scheduleCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  // Arguments are checked before connecting: a usage error never waits for Temporal.
  let action: Action;
  switch (sub) {
    case 'create': {
      const parsed = parseCreate(rest);
      if (parsed === 0) return 0;
      action = parsed;
      break;
    }
    case 'list':
      parseArgs({ args: rest, allowPositionals: false, options: {} });
      action = async ({ client }) => {
        const all = await listSchedules(client);
        if (all.length === 0) console.error('no schedules in this namespace');
        for (const s of all) {
          const next = s.info?.nextActionTimes?.[0]?.toISOString() ?? '-';
          console.log(`${s.scheduleId}\t${s.state?.paused ? 'paused' : 'active'}\tnext ${next}`);
        }
        return 0;
      };
      break;
    case 'trigger':
    case 'pause':
    case 'unpause':
    case 'delete': action = parseOne(sub, rest); break;
    case undefined: throw new UsageError(`a subcommand is required: ${USAGE}`);
    default: throw new UsageError(`unknown subcommand "${sub}": ${USAGE}`);
  }
  const conn = await connectClient();
  try {
    return await action(conn);
  } finally {
    await conn.close();
  }
}

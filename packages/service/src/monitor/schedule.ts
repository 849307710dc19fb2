// A monitor's schedule: a cron expression (croner: 5 or 6 fields, seconds first when 6) in a
// time zone, or a short text ("every 15 minutes", "hourly", "daily") turned into one.
import { Cron } from 'croner';
import { badRequest } from '../http/errors.js';

const TEXT_RULE = 'must read like "every 15 minutes", "every 2 hours", "every day", "hourly" or "daily"';

/** The cron expression a schedule text stands for; 400 naming schedule.text otherwise. */
export function cronOfText(text: string): string {
  const t = text.trim().toLowerCase();
  if (t === 'hourly' || t === 'every hour') return '0 * * * *';
  if (t === 'daily' || t === 'every day') return '0 0 * * *';
  if (t === 'every minute') return '* * * * *';
  const m = /^every (\d{1,4}) (minute|hour|day)s?$/.exec(t);
  const n = m ? Number(m[1]) : 0;
  if (!m || n < 1) throw badRequest(`Bad Request: schedule.text: ${TEXT_RULE}`, [{ path: ['schedule', 'text'], message: TEXT_RULE }]);
  if (m[2] === 'minute' && n < 60) return `*/${n} * * * *`;
  if (m[2] === 'hour' && n < 24) return `0 */${n} * * *`;
  if (m[2] === 'day' && n < 32) return `0 0 */${n} * *`;
  throw badRequest(`Bad Request: schedule.text: ${n} ${m[2]}s is out of range`, [{ path: ['schedule', 'text'], message: 'interval out of range' }]);
}

/** A paused Cron for the expression, or 400 naming the field at fault. */
export function parseCron(cron: string, timezone: string): Cron {
  try {
    const job = new Cron(cron, { timezone, paused: true });
    // An unknown time zone only shows when a date is computed.
    job.nextRun();
    return job;
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    const field = /time ?zone/i.test(reason) ? 'timezone' : 'cron';
    throw badRequest(`Bad Request: schedule.${field}: ${reason}`, [{ path: ['schedule', field], message: reason }]);
  }
}

/** The next run after `from` (epoch ms), or null when the expression never fires again. */
export function nextRunAfter(cron: string, timezone: string, from: number): number | null {
  const job = parseCron(cron, timezone);
  const next = job.nextRun(new Date(from));
  job.stop();
  return next ? next.getTime() : null;
}

/** Runs in 30 days, from the gap between the next two runs (for the credit estimate). */
export function runsPerMonth(cron: string, timezone: string, from: number): number {
  const job = parseCron(cron, timezone);
  const [a, b] = job.nextRuns(2, new Date(from));
  job.stop();
  if (!a || !b) return a ? 1 : 0;
  return Math.max(1, Math.round((30 * 86_400_000) / Math.max(1000, b.getTime() - a.getTime())));
}

// `tbs` time filters (reference 4.12): qdr:h|d|w|m|y (past hour, day, week, month, year,
// counted back from the service clock), cdr:1,cd_min:MM/DD/YYYY,cd_max:MM/DD/YYYY (whole
// UTC days, both ends inclusive, either end optional) and sbd:1 (newest first). Parts
// combine with commas; the request schema has already checked their form.

export interface TimeFilter {
  /** Epoch ms bounds, inclusive; a page needs a date to pass when either is set. */
  from?: number;
  to?: number;
  sortByDate: boolean;
}

const HOUR = 3_600_000;

function usDate(value: string): number | undefined {
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(value);
  if (!m) return undefined;
  const t = Date.UTC(Number(m[3]), Number(m[1]) - 1, Number(m[2]));
  return Number.isNaN(t) ? undefined : t;
}

function monthsBack(now: number, months: number): number {
  const d = new Date(now);
  d.setUTCMonth(d.getUTCMonth() - months);
  return d.getTime();
}

export function parseTbs(tbs: string | undefined, now: number): TimeFilter {
  const filter: TimeFilter = { sortByDate: false };
  if (!tbs) return filter;
  let custom = false;
  let min: number | undefined;
  let max: number | undefined;
  for (const raw of tbs.split(',')) {
    const [key, value = ''] = raw.trim().split(':');
    switch (key) {
      case 'qdr': {
        const from = { h: now - HOUR, d: now - 24 * HOUR, w: now - 7 * 24 * HOUR, m: monthsBack(now, 1), y: monthsBack(now, 12) }[value];
        if (from !== undefined) {
          filter.from = Math.max(filter.from ?? -Infinity, from);
          filter.to = Math.min(filter.to ?? Infinity, now);
        }
        break;
      }
      case 'cdr':
        custom = value === '1';
        break;
      case 'cd_min':
        min = usDate(value);
        break;
      case 'cd_max':
        max = usDate(value);
        break;
      case 'sbd':
        filter.sortByDate = value === '1';
        break;
      default:
        break;
    }
  }
  // cd_min/cd_max count with cdr:1, and also alone (lenient, as the bounds are unambiguous).
  if (custom || min !== undefined || max !== undefined) {
    if (min !== undefined) filter.from = Math.max(filter.from ?? -Infinity, min);
    if (max !== undefined) filter.to = Math.min(filter.to ?? Infinity, max + 24 * HOUR - 1);
  }
  return filter;
}

// Billing periods are calendar months in UTC.
export interface MonthPeriod {
  start: number;
  /** Last millisecond of the month. */
  end: number;
}

export function monthOf(at: number): MonthPeriod {
  const d = new Date(at);
  const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  const end = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - 1;
  return { start, end };
}

/** Every month from the one holding `from` to the one holding `to`, oldest first. */
export function monthsBetween(from: number, to: number): MonthPeriod[] {
  const out: MonthPeriod[] = [];
  let month = monthOf(Math.min(from, to));
  const last = monthOf(to).start;
  while (month.start <= last) {
    out.push(month);
    month = monthOf(month.end + 1);
  }
  return out;
}

// Retry-After in its three observed forms: the header in seconds, the header as an HTTP
// date, and (hosted service, which sends no header) the wait in the message text,
// e.g. "Rate limit exceeded ... retry after 25s, resets at ...".

/** Parses a Retry-After header value into milliseconds from `now`; undefined if absent/garbage. */
export function parseRetryAfterHeader(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (v === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const date = Date.parse(v);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

const TEXT_PATTERN = /retry (?:after|in)\s+(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?)?\b/i;

/** Finds "retry after 25s" (or "retry in 2 minutes", "retry after 500ms") in a message. */
export function parseRetryAfterText(message: string | undefined): number | undefined {
  if (!message) return undefined;
  const m = TEXT_PATTERN.exec(message);
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = (m[2] ?? 's').toLowerCase();
  if (unit.startsWith('ms') || unit.startsWith('milli')) return Math.round(n);
  if (unit.startsWith('m')) return Math.round(n * 60_000);
  return Math.round(n * 1000);
}

/** The header wins; the message text is the fallback. */
export function retryAfterMs(header: string | undefined, message: string | undefined, now?: number): number | undefined {
  return parseRetryAfterHeader(header, now) ?? parseRetryAfterText(message);
}

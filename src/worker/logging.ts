// The worker's log lines: one line per event, as text (the SDK's format) or as JSON objects
// (WEBDATA_LOG_FORMAT=json). The webpack statistics the SDK logs at INFO while bundling the
// workflows are bundler detail: they go to DEBUG. The same logger receives the workflow and
// activity loggers' events and, forwarded, the Rust core's.
import { DefaultLogger, type LogEntry, type Logger, type LogLevel } from '@temporalio/worker';

const RANK: Record<LogLevel, number> = { TRACE: 0, DEBUG: 1, INFO: 2, WARN: 3, ERROR: 4 };

/** webpack's `stats.toString()`: multi-line, `asset …` / `modules by path …` / `webpack … compiled …`. */
export function isBundlerOutput(message: string): boolean {
  return message.includes('\n') && /^(asset |modules by |orphan modules |runtime modules |cacheable modules |webpack [\d.]+ compiled)/m.test(message);
}

function safeMeta(meta: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(meta ?? {})) {
    if (typeof v === 'bigint') out[k] = v.toString();
    else if (v instanceof Error) out[k] = { name: v.name, message: v.message, ...(v.stack ? { stack: v.stack } : {}) };
    else out[k] = v;
  }
  return out;
}

function stringify(value: unknown): string {
  try {
    return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  } catch {
    return JSON.stringify(String(value));
  }
}

/** One line per entry: ISO time, level, message (newlines escaped), then the metadata. */
export function formatLogLine(entry: Pick<LogEntry, 'level' | 'message' | 'meta' | 'timestampNanos'>, format: 'text' | 'json'): string {
  const time = new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString();
  const meta = safeMeta(entry.meta);
  if (format === 'json') return stringify({ time, level: entry.level, message: entry.message, ...meta });
  const rest = Object.keys(meta).length > 0 ? ` ${stringify(meta)}` : '';
  return `${time} [${entry.level}] ${entry.message.replace(/\r?\n/g, '\\n')}${rest}`;
}

export function createWorkerLogger(level: LogLevel, format: 'text' | 'json', write: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): Logger {
  return new DefaultLogger('TRACE', (entry) => {
    const effective: LogLevel = entry.level === 'INFO' && isBundlerOutput(entry.message) ? 'DEBUG' : entry.level;
    if (RANK[effective] < RANK[level]) return;
    write(formatLogLine({ ...entry, level: effective }, format));
  });
}

// The service's log: one line per event on stderr, or nothing (tests).
export interface ServiceLogger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string, err?: unknown): void;
}

export function createConsoleLogger(prefix = 'webdata-service'): ServiceLogger {
  return {
    info: (message) => { process.stderr.write(`[${prefix}] ${message}\n`); },
    warn: (message) => { process.stderr.write(`[${prefix}] warn: ${message}\n`); },
    error: (message, err) => {
      const detail = err instanceof Error ? `\n${err.stack ?? err.message}` : err === undefined ? '' : ` ${String(err)}`;
      process.stderr.write(`[${prefix}] error: ${message}${detail}\n`);
    },
  };
}

export const silentLogger: ServiceLogger = { info: () => {}, warn: () => {}, error: () => {} };

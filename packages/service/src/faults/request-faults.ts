// The faults applied to a request before its handler runs: 429 storms, latency, error rates.
import { HttpError } from '../core/http-error.js';
import type { FaultConfig } from '../core/faults.js';
import { rateLimited } from '../http/errors.js';

export const FAULT_HEADER = 'x-fault-injected';

/** Whether a fault's `routes` list covers this route ("METHOD /pattern", or a bare pattern for every method). */
export function faultCoversRoute(faults: FaultConfig, method: string, pattern: string): boolean {
  if (!faults.routes || faults.routes.length === 0) return true;
  return faults.routes.some((entry) => entry === `${method} ${pattern}` || entry === pattern);
}

export type RequestFault =
  | { kind: 'rate_limit_storm'; error: HttpError }
  | { kind: 'error'; error: HttpError };

/** The fault that answers this request instead of its handler, if any. */
export function pickRequestFault(
  faults: FaultConfig,
  route: { method: string; pattern: string; group: string },
  now: number,
  /** Asked once per eligible request; consumes the schedule or the random draw. */
  errorDue: () => boolean,
): RequestFault | undefined {
  const storm = faults.rateLimitStorm;
  if (storm && now < storm.until) {
    const error = rateLimited(route.group, storm.retryAfterSec, now + storm.retryAfterSec * 1000);
    return { kind: 'rate_limit_storm', error: withFaultHeader(error, 'rate_limit_storm') };
  }
  if (faultCoversRoute(faults, route.method, route.pattern) && errorDue()) {
    const status = faults.errorStatus ?? 500;
    const error = new HttpError(status, `Injected fault: ${route.method} ${route.pattern} answered ${status}`, {
      code: 'FAULT_INJECTED',
      headers: { [FAULT_HEADER]: 'error' },
    });
    return { kind: 'error', error };
  }
  return undefined;
}

function withFaultHeader(error: HttpError, kind: string): HttpError {
  return new HttpError(error.status, error.message, {
    code: error.code,
    details: error.details,
    extra: error.extra,
    headers: { ...error.headers, [FAULT_HEADER]: kind },
  });
}

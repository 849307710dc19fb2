// The monitor routes as activities: one per call, answers passed back as the service sent
// them (they are small: settings, counts). A check's pages can be many and carry diffs, so
// getMonitorCheck returns the check and its page count; recordMonitorCheck stores the pages
// as a change-report run (monitor-series.ts).
import type { CreateMonitorRequest, ListMonitorChecksQuery, ListMonitorsQuery, MonitorCheck, UpdateMonitorRequest } from 'webdata-contract';
import { currentScope } from './context.js';
import type { ActivityDeps } from './deps.js';
import { mapFailures } from './failures.js';
import { recordMonitorCheck, type MonitorCheckRecord, type MonitorCheckRecordInput } from './monitor-series.js';

export function createMonitorActivities(deps: ActivityDeps) {
  const { client } = deps;
  const call = <T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    const { signal } = currentScope();
    return mapFailures(() => fn(signal));
  };
  return {
    createMonitor: (input: { body: CreateMonitorRequest }) => call((signal) => client.createMonitor(input.body, { signal })),
    listMonitors: (input: { query?: ListMonitorsQuery } = {}) => call((signal) => client.listMonitors(input.query, { signal })),
    getMonitor: (input: { monitorId: string }) => call((signal) => client.getMonitor(input.monitorId, { signal })),
    updateMonitor: (input: { monitorId: string; body: UpdateMonitorRequest }) => call((signal) => client.updateMonitor(input.monitorId, input.body, { signal })),
    deleteMonitor: (input: { monitorId: string }) => call((signal) => client.deleteMonitor(input.monitorId, { signal })),
    runMonitor: (input: { monitorId: string }) => call((signal) => client.runMonitor(input.monitorId, { signal })),
    listMonitorChecks: (input: { monitorId: string; query?: ListMonitorChecksQuery }) =>
      call((signal) => client.listMonitorChecks(input.monitorId, input.query, { signal })),
    /** The check (counts, status, credits) and how many pages it has; the pages stay on the service. */
    getMonitorCheck: (input: { monitorId: string; checkId: string }): Promise<{ check: MonitorCheck; pageCount: number }> =>
      call(async (signal) => {
        const r = await client.getMonitorCheck(input.monitorId, input.checkId, { limit: 1 }, { signal });
        const { pages: _pages, next: _next, ...check } = r.data;
        return { check, pageCount: check.summary?.totalPages ?? 0 };
      }),
    /** Stores the check as a run of its change-report series; a second call writes nothing. */
    recordMonitorCheck: (input: MonitorCheckRecordInput): Promise<MonitorCheckRecord> =>
      call((signal) => recordMonitorCheck(deps, input, signal)),
  };
}

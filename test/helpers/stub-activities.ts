// Stub activities for the fast workflow tests: plain functions that record each call (name and
// first argument) in order, so a test asserts on what the workflow asked for.
import type { createActivities } from '../../src/activities/index.js';

export type Activities = ReturnType<typeof createActivities>;
export type ActivityName = keyof Activities;

/** Every activity of the package: the test worker registers each, delegating to the stubs. */
const NAMES = {
  scrape: true, getScrape: true, interact: true, stopInteraction: true, map: true, search: true, createBrowser: true,
  listBrowsers: true, deleteBrowser: true, askSupport: true, listActivity: true, getCreditUsage: true,
  getHistoricalCreditUsage: true, creditSnapshot: true, startAgent: true, getAgent: true, cancelAgent: true,
  startExtract: true, getExtract: true, parse: true, recordParseFailure: true, getQueueStatus: true, getTokenUsage: true,
  getHistoricalTokenUsage: true, startCrawl: true, startBatchScrape: true, getJobSummary: true, cancelJob: true,
  getCrawlStatus: true, getBatchScrapeStatus: true, cancelCrawl: true, cancelBatchScrape: true, getCrawlErrors: true,
  getBatchScrapeErrors: true, listActiveCrawls: true, previewCrawlParams: true, mapToStore: true, selectUrls: true,
  diffUrls: true, findStoredPages: true, filterRobots: true, openSeriesRun: true, closeSeriesRun: true,
  sendChangeSummary: true, tenantCredits: true, reserveTenantCredits: true, settleTenantCredits: true,
  acquireTenantSlot: true, releaseTenantSlot: true,
  createMonitor: true, listMonitors: true, getMonitor: true, updateMonitor: true, deleteMonitor: true, runMonitor: true,
  listMonitorChecks: true, getMonitorCheck: true, recordMonitorCheck: true, followJob: true, collectCrawl: true, collectBatch: true,
  appendBatchScrape: true,
  acquireTeamShare: true, askTeamShare: true, renewTeamShare: true, releaseTeamShare: true,
  lostJobInventory: true, storedCounts: true,
} satisfies Record<ActivityName, true>;

export const ACTIVITY_NAMES = Object.keys(NAMES) as ActivityName[];

export interface Call {
  name: ActivityName;
  input: unknown;
}

export interface Stubs {
  activities: Partial<Activities>;
  calls: Call[];
  /** The inputs of every call to `name`, in order. */
  inputs<N extends ActivityName>(name: N): Array<Parameters<Activities[N]>[0]>;
  names(): ActivityName[];
}

type Impl<N extends ActivityName> = (...args: Parameters<Activities[N]>) => Awaited<ReturnType<Activities[N]>> | Promise<Awaited<ReturnType<Activities[N]>>>;

export function stubActivities(impls: { [N in ActivityName]?: Impl<N> }): Stubs {
  const calls: Call[] = [];
  const activities: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
  for (const [name, impl] of Object.entries(impls) as Array<[ActivityName, (...args: unknown[]) => unknown]>) {
    activities[name] = async (...args: unknown[]) => {
      calls.push({ name, input: args[0] });
      return impl(...args);
    };
  }
  return {
    activities: activities as Partial<Activities>,
    calls,
    inputs: (name) => calls.filter((c) => c.name === name).map((c) => c.input) as never,
    names: () => calls.map((c) => c.name),
  };
}

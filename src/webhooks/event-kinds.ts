// Every webhook event kind the hosted service sends (contract notes "What the hosted service
// added by 2026", "Webhooks") and what the receiver does with it:
//   - job: a job-level event of a crawl, batch scrape, extract or agent job, signalled to the
//     workflow its metadata names (waits wake on it and poll at once);
//   - page: a page-level (or step-level) event, acknowledged and dropped, so history never grows
//     with pages;
//   - monitor-check: a finished service monitor check, recorded as a run of its change series.
// A kind not listed here (added later) is acknowledged and ignored, never refused.

export type EventRoute = 'job' | 'page' | 'monitor-check';

export const EVENT_ROUTES: Readonly<Record<string, EventRoute>> = {
  'crawl.started': 'job',
  'crawl.page': 'page',
  'crawl.completed': 'job',
  'crawl.failed': 'job',
  // Sent by the hosted service though undocumented; terminal, so it ends a wait at once.
  'crawl.cancelled': 'job',
  'batch_scrape.started': 'job',
  'batch_scrape.page': 'page',
  'batch_scrape.completed': 'job',
  'batch_scrape.failed': 'job',
  'batch_scrape.cancelled': 'job',
  'extract.started': 'job',
  'extract.completed': 'job',
  'extract.failed': 'job',
  'agent.started': 'job',
  // One step of the agent's work (a page read, a model call): progress, like a page event.
  'agent.action': 'page',
  'agent.completed': 'job',
  'agent.failed': 'job',
  'agent.cancelled': 'job',
  'monitor.page': 'page',
  'monitor.check.completed': 'monitor-check',
};

export function routeOf(type: string): EventRoute | undefined {
  return Object.hasOwn(EVENT_ROUTES, type) ? EVENT_ROUTES[type] : undefined;
}

// Support ask (POST /v2/support/ask): diagnosis of the caller's team's failed jobs.
export { registerSupportRoutes, askSupport, type SupportRouteOptions } from './routes.js';
export { createJobInspector, inspectorOf, jobView, scrapeView, type InspectorSources, type JobLookup } from './inspector.js';
export { investigate, CAUSES } from './diagnose.js';
export { TimeBudget, SUPPORT_TIME_BUDGET_MS } from './time-budget.js';
export { applyFix } from './facts.js';
export type { Finding, Confidence, Validation, Feedback, Cause, Case } from './types.js';

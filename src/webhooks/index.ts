export { createWebhookHandler, DEFAULT_SIGNATURE_HEADERS, type WebhookHandlerOptions, type WebhookDecision, type WebhookRequestHandler, type MonitorCheckDelivery } from './handler.js';
export { startWebhookServer, type WebhookServer } from './server.js';
export { ReplayGuard, deliveryKey } from './replay-guard.js';
export { EVENT_ROUTES, routeOf, type EventRoute } from './event-kinds.js';

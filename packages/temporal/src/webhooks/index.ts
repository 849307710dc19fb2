export { createWebhookHandler, type WebhookHandlerOptions, type WebhookDecision, type WebhookRequestHandler } from './handler.js';
export { startWebhookServer, type WebhookServer } from './server.js';
export { ReplayGuard } from './replay-guard.js';

export { HttpWebhookDispatcher, type WebhookDispatcherOptions, type WebhookStats } from './dispatcher.js';
export { SIGNATURE_HEADER, signBody, verifySignature } from './signature.js';
export { isLoopbackHost, refuseDestination } from './destination.js';
export { buildPayload, normalizeSpec, passesFilter, type WebhookPayload } from './payload.js';

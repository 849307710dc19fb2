export { HttpWebhookDispatcher, type WebhookDispatcherOptions, type WebhookStats } from './dispatcher.js';
// The signer is the contract's (one implementation, shared with the client).
export { SIGNATURE_HEADER, signWebhookBody, verifyWebhookSignature } from 'webdata-contract/webhook-signature';
export { isLoopbackHost, refuseDestination } from './destination.js';
export { buildPayload, normalizeSpec, passesFilter, type WebhookPayload } from './payload.js';

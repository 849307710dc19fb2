// webdata-client: the typed HTTP client for every v2 endpoint. No Temporal imports; the wire
// contract (request schemas and response types) is re-exported for convenience.
export { WebDataClient } from './client.js';
export type { WebDataClientOptions, RequestOptions, StartJobOptions, JobStatusPage, ParseRequest } from './client.js';
export type { ParseFileInput, ParseFileOptions } from './upload.js';
export { WebDataApiError, isWebDataApiError, isApiErrorBody, isRouteMissing } from './errors.js';
export type { WebDataErrorKind, WebDataApiErrorInit } from './errors.js';
export { DEFAULT_TIMEOUT_MS } from './http.js';
export { createPublicFetch, PrivateAddressError } from './public-fetch.js';
export type { PublicFetch, PublicFetchOptions, AddressLookup } from './public-fetch.js';
export { followPages } from './pagination.js';
export { parseRetryAfterHeader, parseRetryAfterText, retryAfterMs } from './retry-after.js';
export {
  SIGNATURE_HEADER, HOSTED_SIGNATURE_HEADER, SIGNATURE_HEADERS, JOB_WEBHOOK_TYPES,
  signWebhookBody, verifyWebhookSignature, parseWebhookPayload, webhookPayloadSchema, isJobDelivery,
} from './webhooks.js';
export type { JobWebhookType, WebhookDelivery, WebhookJobDelivery, OtherWebhookDelivery } from './webhooks.js';
export type { RequestObserver, RequestOutcome, RequestStart } from './http.js';
export * from 'webdata-contract';

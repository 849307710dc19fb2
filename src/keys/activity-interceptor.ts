// The activity side of key names: reads the `webdata-api-key-ref` header the workflow
// interceptor (workflows/api-key-ref-interceptor.ts) adds, and runs the activity with the client
// of that name. An activity without the header (a run that names no key, or a workflow of the
// user's own) runs with the worker's default client.
import { defaultPayloadConverter, type Headers } from '@temporalio/common';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import type { WebDataClient } from 'webdata-client';
import { API_KEY_REF_HEADER, apiKeyRefIssue } from '../shared/api-key-ref.js';
import { ApiKeyBook, type ApiKeyBookOptions } from './book.js';
import { invalidApiKeyRefHeader } from './failures.js';
import { ClientScope } from './scoped-client.js';

export interface ApiKeyRefs {
  /** The client to give createActivities: per call, the client of the running activity's key name. */
  client: WebDataClient;
  /** Add to WorkerOptions.interceptors.activity. */
  activityInterceptor: ActivityInterceptorsFactory;
}

/** The key name an activity was scheduled with, if any. */
export function apiKeyRefOf(headers: Headers): string | undefined {
  const payload = headers[API_KEY_REF_HEADER];
  if (payload === undefined) return undefined;
  let ref: unknown;
  try {
    ref = defaultPayloadConverter.fromPayload(payload);
  } catch {
    throw invalidApiKeyRefHeader(`the ${API_KEY_REF_HEADER} header is not a JSON string`);
  }
  const issue = apiKeyRefIssue(ref);
  if (issue !== undefined) throw invalidApiKeyRefHeader(issue);
  return ref as string;
}

/**
 * Key names for a worker: the client for createActivities and the activity interceptor that sets
 * it per activity. createWebDataWorker and webDataPlugin call it (option `apiKeys`); a worker
 * built by hand registers both itself.
 */
export function createApiKeyRefs(options: ApiKeyBookOptions): ApiKeyRefs {
  const book = new ApiKeyBook(options);
  const scope = new ClientScope();
  return {
    client: options.resolve ? scope.delegate(options.client) : options.client,
    activityInterceptor: () => ({
      inbound: {
        async execute(input, next) {
          const ref = apiKeyRefOf(input.headers);
          if (ref === undefined) return next(input);
          const client = await book.clientFor(ref);
          return scope.run(client, () => next(input));
        },
      },
    }),
  };
}

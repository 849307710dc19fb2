// Workflow interceptors that carry a run's key name (input.apiKeyRef) to each of its activities in
// the `webdata-api-key-ref` header, where the worker's activity interceptor resolves it to a key
// (src/keys/). The name is learned from the workflow's first argument, which every continue-as-new
// passes on unchanged, so it holds for the whole run without changing any activity's input.
// Headers are not passed through payload codecs: the name is in clear in history (it is a name,
// never a key). Local activities also get the run's tenant (shared/tenant-header.ts), which
// activities scheduled on the task queue carry as their priority's fairnessKey.
import { defaultPayloadConverter, type Headers, type WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { API_KEY_REF_HEADER, apiKeyRefIssue } from '../shared/api-key-ref.js';
import { TENANT_HEADER } from '../shared/tenant-header.js';
import { markApiKeyRefCarried } from './api-key-ref.js';
import { runPriority } from './run-priority.js';

/** The run's key name: a valid `apiKeyRef` of its first argument (an invalid one fails the run's own validation). */
function refOf(first: unknown): string | undefined {
  const ref = (first as { apiKeyRef?: unknown } | null | undefined)?.apiKeyRef;
  return typeof ref === 'string' && apiKeyRefIssue(ref) === undefined ? ref : undefined;
}

export const interceptors: WorkflowInterceptorsFactory = () => {
  markApiKeyRefCarried();
  let ref: string | undefined;
  const named = <T extends { headers: Headers }>(input: T): T =>
    ref === undefined ? input : { ...input, headers: { ...input.headers, [API_KEY_REF_HEADER]: defaultPayloadConverter.toPayload(ref) } };
  return {
    inbound: [
      {
        execute(input, next) {
          ref = refOf(input.args[0]);
          return next(input);
        },
      },
    ],
    outbound: [
      {
        scheduleActivity: (input, next) => next(named(input)),
        scheduleLocalActivity: (input, next) => {
          const tenant = runPriority()?.fairnessKey;
          const withRef = named(input);
          return next(tenant ? { ...withRef, headers: { ...withRef.headers, [TENANT_HEADER]: defaultPayloadConverter.toPayload(tenant) } } : withRef);
        },
      },
    ],
  };
};

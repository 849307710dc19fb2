// apiKeyRef: the NAME of the API key a run is billed with, resolved to a key in the worker
// (src/keys/). The name travels in the run's input and in a header of each activity; the key
// never leaves the worker. Shared by the client, the workflows and the worker: zod only, so safe
// in workflows.
import { z } from 'zod';

/** The activity header that carries a run's key name from the workflow to its activities. */
export const API_KEY_REF_HEADER = 'webdata-api-key-ref';

/** A run's key name: 1-64 letters, digits, dot, dash or underscore (a key is longer or starts with fc-). */
const NAME = /^[A-Za-z0-9._-]{1,64}$/;
/** Hosted service keys start with `fc-`; a long run of hex digits is a key or a hash, not a name. */
const LOOKS_LIKE_A_KEY = /^fc-|[0-9a-f]{32}/i;

const NAME_RULE = 'must be the name of a key (1-64 letters, digits, dot, dash or underscore), e.g. customer-b';
const NOT_A_KEY = 'looks like an API key: give the name of the key, which the worker resolves (a key in the input would be kept in the run\'s history)';

/** Why `value` is not a key name, in one line that never repeats the value; undefined when it is one. */
export function apiKeyRefIssue(value: unknown): string | undefined {
  if (typeof value !== 'string') return NAME_RULE;
  // The key check first: a key over 64 characters must be told it is a key, not that it is long.
  if (LOOKS_LIKE_A_KEY.test(value)) return NOT_A_KEY;
  return NAME.test(value) ? undefined : NAME_RULE;
}

/** The `apiKeyRef` field of a workflow input (the workflows build their own: shared modules are frozen). */
export function apiKeyRefSchemaOf() {
  return z.string({ error: NAME_RULE }).superRefine((value, ctx) => {
    const issue = apiKeyRefIssue(value);
    if (issue !== undefined) ctx.addIssue({ code: 'custom', message: issue });
  });
}

/** The `apiKeyRef` field of a workflow input. */
export const apiKeyRefSchema = apiKeyRefSchemaOf();

// What a run shows in Temporal's visibility (kept in clear even when payloads are encrypted).

/**
 * Memo field set to `false` by the client when the run's host must stay out of visibility (its
 * payloads are encrypted): the workflow then leaves the WebdataTargetHost search attribute unset.
 * Absent (runs started before, or with the host shown), the workflow sets it as it always did.
 */
export const HOST_IN_VISIBILITY_MEMO = 'webdataHostInVisibility';

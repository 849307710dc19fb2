// Typed search attributes of a pipeline run. Defined outside src/workflows so the worker,
// the client and the dev stack share one list; @temporalio/common is safe in workflows.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const STAGE = defineSearchAttributeKey('WebdataStage', SearchAttributeType.KEYWORD);
export const TARGET_HOST = defineSearchAttributeKey('WebdataTargetHost', SearchAttributeType.KEYWORD);
export const PAGES = defineSearchAttributeKey('WebdataPages', SearchAttributeType.INT);
export const CREDITS = defineSearchAttributeKey('WebdataCredits', SearchAttributeType.INT);
export const OUTCOME = defineSearchAttributeKey('WebdataOutcome', SearchAttributeType.KEYWORD);
/** The customer a run is for (input.tenant, `default` when unset). */
export const TENANT = defineSearchAttributeKey('WebdataTenant', SearchAttributeType.KEYWORD);

/** Every key the dev server must register (and a production cluster must create). */
export const SEARCH_ATTRIBUTES = [STAGE, TARGET_HOST, PAGES, CREDITS, OUTCOME, TENANT];

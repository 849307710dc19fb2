// The workflow's own check of a run's input, with no request schema of the contract: the client
// validated the whole input before the start (input.ts), and the HTTP client validates each
// request before it is sent, so the workflow checks what it acts on itself: the pipeline's fields
// with their defaults, every URL (http(s), public unless the recorded setting allows it) and every
// pattern (RE2, length, count). The request options of a stage pass through as given. Preloaded
// (preload.ts): the schemas of what inputs configure are built once per worker (lazy-schema.ts).
import { z } from 'zod';
import { httpUrlSchema, pathPatternSchemaOf, patternListSchemaOf } from 'webdata-contract/rules';
import { lazyStrictObject } from './lazy-schema.js';
import { ALWAYS_BUILT, checkWith, pipelineFields, type AddressPolicy } from './input-fields.js';
import type { ContractParts, PipelineConfig } from './input.js';

/**
 * Request options that pass through with the fields the workflow checks, refusing the keys the
 * pipeline sets itself (as the client's omitted keys are refused: not a known field).
 */
function options(checked: z.core.$ZodLooseShape, refused: readonly string[] = []) {
  return z.looseObject(checked).superRefine((value, ctx) => {
    for (const key of refused) {
      if (key in value) ctx.addIssue({ code: 'custom', path: [key], message: 'is not a known field' });
    }
  });
}

// Checked fields in the contract's order, so several issues read in the client's order.
const requestParts = {
  httpUrl: httpUrlSchema,
  pathPattern: pathPatternSchemaOf,
  patternList: () => patternListSchemaOf(),
  map: () => options({}, ['url', 'origin', 'integration']),
  crawl: () => options({ excludePaths: patternListSchemaOf().optional(), includePaths: patternListSchemaOf().optional() }, ['url', 'webhook', 'origin', 'integration']),
  scrapeOptions: () => options({}),
  batchMaxConcurrency: () => z.unknown().optional(),
  interact: (own: z.core.$ZodLooseShape) => options(own),
  agent: (own: z.core.$ZodLooseShape) => options(own),
} as unknown as ContractParts;

const workflowInput = lazyStrictObject(pipelineFields(requestParts), ALWAYS_BUILT);

/** The workflow's check of its input: the pipeline's rules and defaults, URLs and patterns. */
export function checkPipelineInput(input: unknown, policy: AddressPolicy): PipelineConfig {
  return checkWith(workflowInput.schemaFor(input), input, policy);
}

// PipelineInput: one object configures every stage. Validated by the client before starting with
// the same zod schemas the HTTP client uses, so a bad field fails fast, names the field and the
// rule, and spends nothing. The workflow checks it again without the request schemas
// (input-check.ts): the pipeline's own fields and the untrusted parts.
import { z } from 'zod';
import {
  agentRequestSchema,
  crawlRequestSchema,
  mapRequestSchema,
  scrapeOptionsShape,
  pathPatternSchema,
  patternListSchema,
  httpUrl,
  ALLOW_PRIVATE_ADDRESSES_ENV,
  addressAllowanceOf,
  addressAllowanceOption,
  allowanceWithin,
  NO_PRIVATE_ADDRESSES,
  type PrivateAddressOption,
  batchScrapeRequestSchema,
  checkCodeOrPrompt,
  interactRequestShape,
} from 'webdata-contract';
import { lazyStrictObject } from './lazy-schema.js';
import { ALWAYS_BUILT, checkWith, pipelineFields, PipelineInputError, type AddressPolicy } from './input-fields.js';

export { STAGES, DEFAULT_FIXABLE_FIELDS, MIN_STALL_AFTER_MS, MIN_DEADLINE_MS, PipelineInputError, stageEnabled, type StageName, type AddressPolicy } from './input-fields.js';

/** The contract's request schemas, as the pipeline's fields embed them. */
const contractParts = {
  httpUrl: () => httpUrl,
  pathPattern: () => pathPatternSchema,
  patternList: () => patternListSchema,
  map: () => mapRequestSchema.omit({ url: true, origin: true, integration: true }),
  crawl: () => crawlRequestSchema.omit({ url: true, webhook: true, origin: true, integration: true }),
  scrapeOptions: () => z.strictObject(scrapeOptionsShape),
  batchMaxConcurrency: () => batchScrapeRequestSchema.shape.maxConcurrency,
  interact: <S extends z.core.$ZodLooseShape>(own: S) => z.strictObject({ ...own, ...interactRequestShape }).superRefine((value, ctx) => checkCodeOrPrompt(value as { code?: string; prompt?: string }, ctx)),
  agent: <S extends z.core.$ZodLooseShape>(own: S) => {
    const agentFields = agentRequestSchema.shape;
    return z.strictObject({
      prompt: agentFields.prompt,
      urls: agentFields.urls,
      schema: agentFields.schema,
      /** The agent's own cap; the run's budget clamps it further (what is left of budget.credits). */
      maxCredits: agentFields.maxCredits,
      strictConstrainToURLs: agentFields.strictConstrainToURLs,
      model: agentFields.model,
      ...own,
    });
  },
};

/** What the pipeline's fields take from the contract (input-check.ts gives a lighter set). */
export type ContractParts = typeof contractParts;

/**
 * The fields of the input, each built when a run's input has it (lazy-schema.ts): starting a run
 * builds what its input configures, not every stage's schema.
 */
const pipelineInput = lazyStrictObject(pipelineFields(contractParts), ALWAYS_BUILT);

/** The whole input schema (every field built). */
export const pipelineInputSchema = pipelineInput.full;
/** The optional fields a run's input may leave out (their schemas are built only when present). */
export const pipelineInputOptionalFields = pipelineInput.optionalFields;

export type PipelineInput = z.input<ReturnType<typeof pipelineInputSchema>>;
export type PipelineConfig = z.output<ReturnType<typeof pipelineInputSchema>>;

/** Validates the input in full: the schema's rules, then every URL's host against the private ranges. */
export function parsePipelineInput(input: unknown, policy: AddressPolicy): PipelineConfig {
  return checkWith(pipelineInput.schemaFor(input), input, policy);
}

/**
 * The input a client starts a run with: its deployment's setting recorded in
 * `allowPrivateAddresses` (the list of hosts, or `true` for the blanket allowance; nothing when
 * off). Refuses an input that sets the field itself to more than the setting allows.
 */
export function recordAddressPolicy<T extends { allowPrivateAddresses?: PrivateAddressOption; stallAfterMs?: number }>(input: T, policy: AddressPolicy): T {
  const recorded = recordAllowance(input, policy);
  return policy.stallAfterMs !== undefined && recorded.stallAfterMs === undefined ? { ...recorded, stallAfterMs: policy.stallAfterMs } : recorded;
}

function recordAllowance<T extends { allowPrivateAddresses?: PrivateAddressOption }>(input: T, policy: AddressPolicy): T {
  const allowance = addressAllowanceOf(policy.allowPrivateAddresses, ALLOW_PRIVATE_ADDRESSES_ENV) ?? NO_PRIVATE_ADDRESSES;
  const notInput = () => new PipelineInputError([{ path: 'allowPrivateAddresses', message: `is the deployment's setting (${ALLOW_PRIVATE_ADDRESSES_ENV} or the allowPrivateAddresses option), not part of a run's input` }]);
  let asked;
  try {
    asked = addressAllowanceOf(input.allowPrivateAddresses);
  } catch {
    throw notInput();
  }
  if (asked && !allowanceWithin(asked, allowance)) throw notInput();
  const { allowPrivateAddresses: _set, ...rest } = input;
  const recorded = addressAllowanceOption(allowance);
  return (recorded === false ? rest : { ...rest, allowPrivateAddresses: recorded }) as T;
}

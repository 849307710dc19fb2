// A pipeline input as startPipeline sends it, for a run started another way: as a child workflow
// of the user's own workflow. The child's input must carry the deployment's address setting the
// way startPipeline records it, or the pipeline refuses private targets the deployment allows.
import { addressPolicy, type AddressPolicyOption } from './address-policy.js';
import { parsePipelineInput, recordAddressPolicy, type PipelineInput } from '../workflows/input.js';

/**
 * Validates `input` with the pipeline's own schemas (throws PipelineInputError, one line per
 * field) and returns it with the address setting recorded: pass the result as the pipeline's
 * argument (`executeChild('webDataPipeline', { args: [prepared] })`).
 */
export function preparePipelineInput(input: PipelineInput, options: AddressPolicyOption = {}): PipelineInput {
  const policy = addressPolicy(options);
  const recorded = recordAddressPolicy(input, policy);
  parsePipelineInput(recorded, policy);
  return recorded;
}

// proposeCrawlOptions: a model when one is configured, else the documented rules (rules.ts).
// A model that fails (unreachable, bad JSON) falls back to the rules, and the notes say so.
import type { ServiceContext } from '../core/service.js';
import { llmConfigFromEnv, type LlmConfig } from './llm.js';
import { proposeWithModel } from './model.js';
import { readPromptRules } from './rules.js';
import type { CrawlPromptOptions, CrawlProposal } from './types.js';

export interface ProposeInput {
  url: string;
  prompt: string;
  /** The model to ask; undefined = rules only (callers pass llmConfigFromEnv() for the configured one). */
  llm?: LlmConfig;
  signal?: AbortSignal;
}

export async function proposeCrawlOptions(input: ProposeInput): Promise<CrawlProposal> {
  if (input.llm) {
    try {
      const { options, notes } = await proposeWithModel(input.llm, input);
      return { options, source: 'model', notes };
    } catch (err) {
      if (input.signal?.aborted) throw err;
      const rules = readPromptRules(input.prompt, input.url);
      const why = err instanceof Error ? err.message : String(err);
      return { options: rules.options, source: 'rules', notes: [`the model failed (${why}); the prompt was read by rules instead`, ...rules.notes] };
    }
  }
  const rules = readPromptRules(input.prompt, input.url);
  return { options: rules.options, source: 'rules', notes: rules.notes };
}

/**
 * Drop-in body for the jobs module's crawl prompt hook (`applyCrawlPrompt` in
 * crawler/prompt.ts): same input and output, using the model of the environment if any.
 */
export async function generateCrawlOptions(
  input: { url: string; prompt: string; signal?: AbortSignal },
  _ctx: ServiceContext,
): Promise<CrawlPromptOptions> {
  const proposal = await proposeCrawlOptions({ ...input, llm: llmConfigFromEnv() });
  return proposal.options;
}

// POST /v2/scrape/{jobId}/interact (4.1).
import { z } from 'zod';
import { body, int } from './common.js';
import type { INTERACT_REQUEST_FIELDS } from '../defaults.js';
import { MAX_INTERACT_CODE, MAX_INTERACT_PROMPT, MAX_INTERACT_TIMEOUT_SEC, MIN_INTERACT_TIMEOUT_SEC } from '../defaults.js';

/**
 * The fields of an interact request, without the SDK keys: a schema that embeds the request
 * (the pipeline's interact stage) spreads these and adds `checkCodeOrPrompt`, so a field or rule
 * changed here changes there too.
 */
export const interactRequestShape = {
  code: z.string().min(1).max(MAX_INTERACT_CODE).optional(),
  prompt: z.string().min(1).max(MAX_INTERACT_PROMPT).optional(),
  // Only used with code; with a prompt the service ignores it (4.1), so it is not an error.
  language: z.enum(['python', 'node', 'bash']).optional(),
  timeout: int.min(MIN_INTERACT_TIMEOUT_SEC).max(MAX_INTERACT_TIMEOUT_SEC).optional(),
} satisfies Record<(typeof INTERACT_REQUEST_FIELDS)[number], z.ZodType>;

/** The request's one cross-field rule: exactly one of `code` and `prompt`. */
export function checkCodeOrPrompt(value: { code?: string; prompt?: string }, ctx: z.RefinementCtx): void {
  if ((value.code === undefined) === (value.prompt === undefined)) {
    ctx.addIssue({ code: 'custom', path: [], message: 'exactly one of code or prompt is required' });
  }
}

export const interactRequestSchema = body(interactRequestShape).superRefine(checkCodeOrPrompt);

export type InteractRequest = z.input<typeof interactRequestSchema>;
export type InteractRequestParsed = z.output<typeof interactRequestSchema>;

// POST /v2/scrape/{jobId}/interact (4.1).
import { z } from 'zod';
import { body, int } from './common.js';
import { MAX_INTERACT_CODE, MAX_INTERACT_PROMPT, MAX_INTERACT_TIMEOUT_SEC, MIN_INTERACT_TIMEOUT_SEC } from '../defaults.js';

export const interactRequestSchema = body({
  code: z.string().min(1).max(MAX_INTERACT_CODE).optional(),
  prompt: z.string().min(1).max(MAX_INTERACT_PROMPT).optional(),
  // Only used with code; with a prompt the service ignores it (4.1), so it is not an error.
  language: z.enum(['python', 'node', 'bash']).optional(),
  timeout: int.min(MIN_INTERACT_TIMEOUT_SEC).max(MAX_INTERACT_TIMEOUT_SEC).optional(),
}).superRefine((value, ctx) => {
  if ((value.code === undefined) === (value.prompt === undefined)) {
    ctx.addIssue({ code: 'custom', path: [], message: 'exactly one of code or prompt is required' });
  }
});

export type InteractRequest = z.input<typeof interactRequestSchema>;
export type InteractRequestParsed = z.output<typeof interactRequestSchema>;

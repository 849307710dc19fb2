// POST /v2/support/ask (4.3).
import { z } from 'zod';
import { body, nonEmpty } from './common.js';
import { MAX_SUPPORT_QUESTION, MAX_SUPPORT_RATIONALE } from '../defaults.js';

export const supportAskRequestSchema = body({
  question: z.string().min(1).max(MAX_SUPPORT_QUESTION),
  rationale: z.string().min(1).max(MAX_SUPPORT_RATIONALE).optional(),
  jobId: nonEmpty.optional(),
  context: z.record(z.string(), z.unknown()).optional(),
});

export type SupportAskRequest = z.input<typeof supportAskRequestSchema>;
export type SupportAskRequestParsed = z.output<typeof supportAskRequestSchema>;

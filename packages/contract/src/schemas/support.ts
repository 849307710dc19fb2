// POST /v2/support/ask (4.3).
import { z } from 'zod';
import { body, nonEmpty } from './common.js';

export const supportAskRequestSchema = body({
  question: z.string().min(1).max(8000),
  rationale: z.string().min(1).max(2000).optional(),
  jobId: nonEmpty.optional(),
  context: z.record(z.string(), z.unknown()).optional(),
});

export type SupportAskRequest = z.input<typeof supportAskRequestSchema>;
export type SupportAskRequestParsed = z.output<typeof supportAskRequestSchema>;

// POST /v2/parse (contract notes): multipart upload of one file (field `file`) with optional
// JSON `options`; answered like a scrape. The file itself is checked by size and kind, not here.
import { z } from 'zod';
import { formatSchema } from './scrape.js';

export const parseOptionsSchema = z.strictObject({
  formats: z.array(formatSchema).optional(),
  parsers: z.array(z.enum(['pdf'])).optional(),
});

export type ParseOptions = z.input<typeof parseOptionsSchema>;
export type ParseOptionsParsed = z.output<typeof parseOptionsSchema>;

// ParseDocumentsInput: the files to parse (paths the worker can read), the parse options, the
// store run, a credit budget. Validated by the client before starting with the contract's parse
// options schema: a bad field fails with its path and rule before anything is parsed or spent.
// The workflow checks it again without that schema (parse-documents-check.ts).
import type { z } from 'zod';
import { parseOptionsSchema } from 'webdata-contract';
import { lazyStrictObject } from './lazy-schema.js';
import { checkParseWith, PARSE_ALWAYS_BUILT, parseDocumentsFields, type parseFileSchema } from './parse-documents-fields.js';

export { MAX_PARSE_FILES, ParseDocumentsInputError, filePath, parseFileSchema } from './parse-documents-fields.js';

const parseDocumentsInput = lazyStrictObject(parseDocumentsFields(() => parseOptionsSchema), PARSE_ALWAYS_BUILT);

/** The whole input schema (every field built). */
export const parseDocumentsInputSchema = parseDocumentsInput.full;
/** The optional fields an input may leave out (their schemas are built only when present). */
export const parseDocumentsInputOptionalFields = parseDocumentsInput.optionalFields;

export type ParseDocumentsInput = z.input<ReturnType<typeof parseDocumentsInputSchema>>;
export type ParseDocumentsConfig = z.output<ReturnType<typeof parseDocumentsInputSchema>>;
export type ParseFile = z.output<ReturnType<typeof parseFileSchema>>;

/** Validates the input in full (the client's check before a start). */
export function parseParseDocumentsInput(input: unknown): ParseDocumentsConfig {
  return checkParseWith(parseDocumentsInput.schemaFor(input), input);
}

// The workflow's own check of a parseDocuments input, with no request schema of the contract: the
// client validated the whole input before the start (parse-documents-input.ts) and the HTTP client
// validates the parse options of each request, so they pass through here as given. Preloaded
// (preload.ts): its schemas are built once per worker (lazy-schema.ts).
import { z } from 'zod';
import { lazyStrictObject } from './lazy-schema.js';
import { checkParseWith, PARSE_ALWAYS_BUILT, parseDocumentsFields } from './parse-documents-fields.js';
import type { ParseDocumentsConfig } from './parse-documents-input.js';

const workflowInput = lazyStrictObject(parseDocumentsFields(() => z.looseObject({})), PARSE_ALWAYS_BUILT);

/** The workflow's check of its input: the files, budget and settings with their defaults. */
export function checkParseDocumentsInput(input: unknown): ParseDocumentsConfig {
  return checkParseWith(workflowInput.schemaFor(input), input);
}

// The fields of ParseDocumentsInput with their rules and defaults: one list for the client's check
// (parse-documents-input.ts, the contract's parse options in full) and the workflow's own
// (parse-documents-check.ts, options passed through), so a run evaluates no request schema.
import { z } from 'zod';
import { formatIssues, MIN_BUDGET_CREDITS } from 'webdata-contract/rules';
import { once } from './lazy-schema.js';
import type { ParseDocumentsConfig } from './parse-documents-input.js';
import { priorityKeySchemaOf, tenantSchemaOf } from '../shared/tenant.js';
import { apiKeyRefSchemaOf } from '../shared/api-key-ref.js';

/** Files a run may list: the list travels in each continue-as-new, so it stays small. */
export const MAX_PARSE_FILES = 10_000;

/** An absolute POSIX path, or a Windows drive path (`C:\...`). */
const ABSOLUTE = /^(\/|[A-Za-z]:[\\/])/;

const FILE_RULE = 'must be an absolute path (a string) or { path, filename?, contentType? }';

// Built on first use (lazy-schema.ts): a pipeline run evaluates this module too and never uses them.
const pathSchema = once(() => z.string({ error: FILE_RULE })
  .min(1)
  .max(4096)
  .refine((p) => ABSOLUTE.test(p), { error: 'must be an absolute path readable by the worker' })
  .refine((p) => !p.includes('\0'), { error: 'must not contain a NUL character' }));

export const parseFileSchema = once(() => z.union([
  pathSchema(),
  z.strictObject({
    path: pathSchema(),
    /** Name sent with the file (default: the path's base name); it becomes the document's URL. */
    filename: z.string().min(1).max(255).optional(),
    /** MIME type sent with the file (default: from the extension). */
    contentType: z.string().regex(/^[\w.+-]+\/[\w.+-]+/, { error: 'must be a MIME type such as application/pdf' }).optional(),
  }),
], { error: FILE_RULE }));

/** The fields of the input, in order; `options` from the caller (the contract's schema, or a lighter one). */
export function parseDocumentsFields<O extends z.ZodType>(options: () => O) {
  return {
    /** Files on the worker's filesystem (each at most 50 MB): PDF, DOCX, HTML, text. */
    files: () => z.array(parseFileSchema()).min(1).max(MAX_PARSE_FILES).superRefine((files, ctx) => {
      const seen = new Map<string, number>();
      files.forEach((file, i) => {
        const path = typeof file === 'string' ? file : file.path;
        const first = seen.get(path);
        if (first !== undefined) ctx.addIssue({ code: 'custom', path: [i], message: `duplicate path (also files.${first})` });
        else seen.set(path, i);
      });
    }),
    /** Sent with every file (`formats`, `parsers`). */
    options: () => options().optional(),
    /** Document store run id; defaults to the workflow id. */
    runId: () => z.string().regex(/^[A-Za-z0-9._-]{1,128}$/, { error: 'must be 1-128 letters, digits, dot, dash or underscore' }).optional(),
    /** The customer this run is for (fairness key, search attribute, metrics label). */
    tenant: () => tenantSchemaOf().optional(),
    /** Temporal priority of the run's tasks: 1 (first) to 5 (last); default 3. */
    priorityKey: () => priorityKeySchemaOf().optional(),
    /** The NAME of the API key the files are parsed with (its team), resolved by the worker; unset: WEBDATA_API_KEY. */
    apiKeyRef: () => apiKeyRefSchemaOf().optional(),
    budget: () => z.strictObject({
      /** Credits the run may spend: no file is started whose estimated cost would pass it. */
      credits: z.number().int().min(MIN_BUDGET_CREDITS),
    }).optional(),
    /** Files parsed at the same time. */
    concurrency: () => z.number().int().min(1).max(16).default(2),
    /** Attempts per file on transient failures (429, 5xx, network); a refused file fails at once. */
    maxAttempts: () => z.number().int().min(1).max(20).default(4),
    /** Files per workflow run before it continues as new (bounded history); default 200. */
    filesPerRun: () => z.number().int().min(1).max(1_000).default(200),
  };
}

/** Fields built for every input: required, or acting on absence (a default). */
export const PARSE_ALWAYS_BUILT = ['files', 'concurrency', 'maxAttempts', 'filesPerRun'] as const;

export class ParseDocumentsInputError extends Error {
  readonly issues: Array<{ path: string; message: string }>;
  constructor(issues: Array<{ path: string; message: string }>) {
    super(`invalid parseDocuments input: ${issues.map((i) => `${i.path || '(root)'}: ${i.message}`).join('; ')}`);
    this.name = 'ParseDocumentsInputError';
    this.issues = issues;
  }
}

/** The schema's rules on `input`, each issue one line naming the field and the rule. */
export function checkParseWith(schema: z.ZodType, input: unknown): ParseDocumentsConfig {
  // jitless: a compiled parser (new Function per object) costs each run more than one parse saves.
  const parsed = schema.safeParse(input, { jitless: true });
  if (!parsed.success) throw new ParseDocumentsInputError(formatIssues(parsed.error));
  return parsed.data as ParseDocumentsConfig;
}

export function filePath(file: string | { path: string }): string {
  return typeof file === 'string' ? file : file.path;
}

// Loaded once per worker, before any run (the bundle's `preloadModules`, worker/bundler-options.ts),
// then shared by every run instead of evaluated again by each (issues 27 and 44): zod, the
// contract's rules (webdata-contract/rules: defaults, prices, the address and pattern checks with
// ipaddr.js and re2js) and the workflows' checks of their input, whose schemas the first run that
// needs them builds and later runs reuse (lazy-schema.ts). None of it holds per-run state.
//
// The SDK freezes what preloading loaded. zod completes parts of itself on first use (the English
// messages, whether `new Function` is allowed), so this module uses it once first: a frozen zod
// could no longer do that in a run. And zod writes to a schema's RegExps while it parses, so no
// schema a run parses with may be reachable from a preloaded module's exports: the checks keep
// theirs in closures, the rules export functions that build them.
import { z } from 'zod';
import { compilePattern, formatIssues, httpUrlSchema, NON_RETRYABLE_ERROR_KINDS, pageCredits, patternRule, privateUrlIssues, sameUrl } from 'webdata-contract/rules';
import { checkPipelineInput } from './input-check.js';
import { checkParseDocumentsInput } from './parse-documents-check.js';

/** Frames in a stack trace taken in this bundle's runs (Node's default is 10). */
export const WORKFLOW_STACK_FRAMES = 4;

// The SDK's promise hook builds a stack trace for every promise a run creates (for the UI's stack
// trace query), and V8 walks as many frames as the sandbox's Error.stackTraceLimit asks: at Node's
// 10, that walk was a fifth of a whole run's workflow-thread time (bench/workflow-eval.ts). Four
// frames still name the run's own wait points in that query (the hook takes one or two, then e.g.
// `waitForJob` and its caller) and the throw site and three callers of an error thrown in
// workflow code. Set before the SDK freezes the context's globals, so every run of this bundle has it.
Error.stackTraceLimit = WORKFLOW_STACK_FRAMES;

const warm = z.strictObject({ url: z.string().min(1), n: z.number().int().default(1) }).optional();
warm.safeParse({ url: '' });
warm.safeParse({ url: 'x' }, { jitless: true });
patternRule('^/a(b|c)*$');
compilePattern('^/docs/').test('/docs/x');
privateUrlIssues({ url: 'http://10.0.0.1/' });

/** Nothing to import: loading this module (and with it what the workflows share) is its purpose. */
export const preloaded = [formatIssues, httpUrlSchema, NON_RETRYABLE_ERROR_KINDS, pageCredits, sameUrl, checkPipelineInput, checkParseDocumentsInput].length > 0;

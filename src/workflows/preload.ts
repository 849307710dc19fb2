// Loaded once per worker, before any run (the bundle's `preloadModules`, worker/bundler-options.ts):
// zod and the contract's rules (webdata-contract/rules: defaults, prices, the address and pattern
// checks with ipaddr.js and re2js) are then shared by every run instead of evaluated again by each
// (issues 27 and 44). They hold no per-run state. The SDK freezes what preloading loaded, and zod
// completes parts of itself on first use (the English messages, whether `new Function` is
// allowed), so this module uses it once first: a frozen zod could no longer do that in a run. The
// rules build no schema when loaded: a frozen schema cannot parse (zod writes to its RegExps), so
// runs build theirs with the rules' factories.
import { z } from 'zod';
import { compilePattern, formatIssues, httpUrlSchema, NON_RETRYABLE_ERROR_KINDS, pageCredits, patternRule, privateUrlIssues, sameUrl } from 'webdata-contract/rules';

const warm = z.strictObject({ url: z.string().min(1), n: z.number().int().default(1) }).optional();
warm.safeParse({ url: '' });
warm.safeParse({ url: 'x' }, { jitless: true });
patternRule('^/a(b|c)*$');
compilePattern('^/docs/').test('/docs/x');
privateUrlIssues({ url: 'http://10.0.0.1/' });

/** Nothing to import: loading this module (and with it the rules the workflows use) is its purpose. */
export const preloaded = [formatIssues, httpUrlSchema, NON_RETRYABLE_ERROR_KINDS, pageCredits, sameUrl].length > 0;

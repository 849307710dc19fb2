// Schemas that a workflow builds for itself, as functions: the workflow bundle shares the
// contract's rules between runs (webdata-contract/rules) and the SDK freezes what it shares, but
// zod writes to a schema's RegExp while it parses, so each run makes its own. The request schemas
// use the same functions, so the rules are written once.
import { z } from 'zod';
import { MAX_PATTERNS } from '../defaults.js';
import { patternRule } from '../untrusted/pattern.js';

/** An http(s) URL. */
export function httpUrlSchema() {
  return z.url({ protocol: /^https?$/ });
}

/**
 * A URL pattern from a user: at most MAX_PATTERN_LENGTH characters, RE2 syntax (the worker runs
 * it in linear time) that `new RegExp` also compiles (the service runs it so).
 */
export function pathPatternSchemaOf() {
  return z.string().superRefine((pattern, ctx) => {
    const rule = patternRule(pattern);
    if (rule) ctx.addIssue({ code: 'custom', message: rule });
  });
}

/** A list of patterns (includePaths, excludePaths, select include/exclude). */
export function patternListSchemaOf(pattern = pathPatternSchemaOf()) {
  return z.array(pattern).max(MAX_PATTERNS);
}

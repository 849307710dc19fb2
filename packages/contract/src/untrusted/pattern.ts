// User URL patterns run in linear time: RE2 semantics (re2js, pure JS, so the workflow sandbox
// can run it too). A pattern that needs backtracking (backreferences, lookaround) is refused with
// the construct named, never run with `new RegExp` where a pattern like `(a+)+$` takes minutes.
import { RE2JS } from 're2js';
import { MAX_PATTERN_LENGTH } from '../defaults.js';

/** A compiled user pattern: `test` finds a match anywhere in the text, like RegExp#test. */
export interface UrlPattern {
  test(text: string): boolean;
}

/** Compiles a pattern that `patternRule` accepted; throws on one it refuses. */
export function compilePattern(pattern: string): UrlPattern {
  const re = RE2JS.compile(pattern);
  return { test: (text) => re.test(text) };
}

/** Why a pattern is refused (one line naming the rule), or undefined when it is accepted. */
export function patternRule(pattern: string): string | undefined {
  if (pattern.length > MAX_PATTERN_LENGTH) return `must be at most ${MAX_PATTERN_LENGTH} characters (got ${pattern.length})`;
  // The service compiles it with `new RegExp`, so it must be valid there first.
  try {
    new RegExp(pattern);
  } catch (err) {
    return `must be a valid regular expression (${err instanceof Error ? err.message : String(err)})`;
  }
  try {
    RE2JS.compile(pattern);
  } catch (err) {
    return unsupported(pattern, err instanceof Error ? err.message : String(err));
  }
  return undefined;
}

function unsupported(pattern: string, message: string): string {
  const construct = constructOf(pattern, message);
  const why = 'patterns run in linear time (RE2 syntax)';
  if (construct) return `${construct} is not supported: ${why}`;
  return `must be a regular expression in RE2 syntax (${message.replace(/^error parsing regexp: /, '')})`;
}

/** The backtracking-only construct RE2 refused, named as a user would look for it. */
function constructOf(pattern: string, message: string): string | undefined {
  if (/\(\?<?[=!]/.test(pattern) && /Perl syntax|named capture/.test(message)) {
    const m = /\(\?(<?[=!])/.exec(pattern)?.[1];
    const names: Record<string, string> = { '=': 'lookahead (?=', '!': 'negative lookahead (?!', '<=': 'lookbehind (?<=', '<!': 'negative lookbehind (?<!' };
    return names[m ?? '='];
  }
  if (/escape sequence: `\\(\d|k)/.test(message)) return 'a backreference (\\1, \\k<name>)';
  return undefined;
}

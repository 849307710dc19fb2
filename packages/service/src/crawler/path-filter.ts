// includePaths / excludePaths: unanchored regexes tested against the pathname, or the
// full URL with regexOnFullURL. Excludes win over includes. Patterns come from API callers, so
// they run in linear time (RE2, the contract's compilePattern), never with a backtracking RegExp.
import { compilePattern, patternRule, type UrlPattern } from 'webdata-contract';
import { HttpError } from '../core/http-error.js';

function compile(patterns: string[] | undefined, field: string): UrlPattern[] {
  return (patterns ?? []).map((p, i) => {
    const rule = patternRule(p);
    if (rule !== undefined) {
      throw new HttpError(400, `Bad Request: ${field}.${i} ${rule}`, {
        code: 'BAD_REQUEST',
        details: [{ path: [field, i], message: rule }],
      });
    }
    return compilePattern(p);
  });
}

export class PathFilter {
  private readonly include: UrlPattern[];
  private readonly exclude: UrlPattern[];
  private readonly onFullUrl: boolean;

  /** Throws HttpError 400 for a pattern that does not compile. */
  constructor(opts: { includePaths?: string[]; excludePaths?: string[]; regexOnFullURL?: boolean }) {
    this.include = compile(opts.includePaths, 'includePaths');
    this.exclude = compile(opts.excludePaths, 'excludePaths');
    this.onFullUrl = opts.regexOnFullURL ?? false;
  }

  /** Whether an exclude pattern matches: such a URL is never visited nor reported as robots-blocked. */
  excluded(url: URL): boolean {
    const subject = this.onFullUrl ? url.href : url.pathname;
    return this.exclude.some((re) => re.test(subject));
  }

  matches(url: URL): boolean {
    const subject = this.onFullUrl ? url.href : url.pathname;
    if (this.exclude.some((re) => re.test(subject))) return false;
    return this.include.length === 0 || this.include.some((re) => re.test(subject));
  }
}

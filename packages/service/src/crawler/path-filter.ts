// includePaths / excludePaths: unanchored regexes tested against the pathname, or the
// full URL with regexOnFullURL. Excludes win over includes.
import { HttpError } from '../core/http-error.js';

function compile(patterns: string[] | undefined, field: string): RegExp[] {
  return (patterns ?? []).map((p, i) => {
    try {
      return new RegExp(p);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new HttpError(400, `Bad Request: ${field}.${i} is not a valid regular expression (${why})`, {
        code: 'BAD_REQUEST',
        details: [{ path: [field, i], message: `must be a valid regular expression (${why})` }],
      });
    }
  });
}

export class PathFilter {
  private readonly include: RegExp[];
  private readonly exclude: RegExp[];
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

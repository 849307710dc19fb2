// Turns zod issues into `{ path, message }` pairs whose message names the rule from the
// reference ("must be at most 100000"), so both the client's local validation errors and
// the service's 400 `details` read the same way. We translate by issue code instead of
// installing a global zod error map, because the service and other packages share zod.
import type { z } from 'zod';

export interface IssueDetail {
  path: string;
  message: string;
}

type Issue = z.core.$ZodIssue;
type PathKey = PropertyKey;

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
  record: 'an object',
  bigint: 'an integer',
};

function joinPath(path: readonly PathKey[]): string {
  return path.map((p) => (typeof p === 'symbol' ? p.toString() : String(p))).join('.');
}

function sizeNoun(origin: string, n: number | bigint): string {
  if (origin === 'string') return Number(n) === 1 ? 'character' : 'characters';
  if (origin === 'array' || origin === 'set') return Number(n) === 1 ? 'item' : 'items';
  return '';
}

function describe(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type': {
      if (/received undefined$/.test(issue.message)) return 'is required';
      return `must be ${TYPE_NAMES[issue.expected] ?? issue.expected}`;
    }
    case 'too_big': {
      const noun = sizeNoun(issue.origin, issue.maximum);
      if (noun) return `must have at most ${String(issue.maximum)} ${noun}`;
      return issue.inclusive === false ? `must be less than ${String(issue.maximum)}` : `must be at most ${String(issue.maximum)}`;
    }
    case 'too_small': {
      const noun = sizeNoun(issue.origin, issue.minimum);
      if (noun) {
        if (Number(issue.minimum) === 1) return issue.origin === 'string' ? 'must not be empty' : 'must have at least 1 item';
        return `must have at least ${String(issue.minimum)} ${noun}`;
      }
      return issue.inclusive === false ? `must be greater than ${String(issue.minimum)}` : `must be at least ${String(issue.minimum)}`;
    }
    case 'invalid_format': {
      if (issue.format === 'url') return 'must be a valid http(s) URL';
      if (issue.format === 'uuid' || issue.format === 'guid') return 'must be a UUID';
      // regex and other formats carry the rule in the message we set in the schema.
      return issue.message;
    }
    case 'invalid_value':
      return `must be one of: ${issue.values.map((v) => String(v)).join(', ')}`;
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}`;
    default:
      return issue.message;
  }
}

/**
 * How well a union branch matched: 0 when the value has another type altogether, 1 when
 * it only missed an enum/literal at the top, 2 when it failed deeper (e.g. the object
 * form of a format with a bad member), which is the branch the caller meant.
 */
function branchScore(branch: readonly Issue[]): number {
  if (branch.some((i) => i.path.length > 0 || (i.code !== 'invalid_type' && i.code !== 'invalid_value'))) return 2;
  return branch.some((i) => i.code === 'invalid_value') ? 1 : 0;
}

function flatten(issues: readonly Issue[], prefix: readonly PathKey[], out: IssueDetail[]): void {
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) out.push({ path: joinPath([...path, key]), message: 'is not a known field' });
      continue;
    }
    if (issue.code === 'invalid_union') {
      if ('discriminator' in issue && issue.discriminator !== undefined) {
        const options = (issue as { options?: unknown[] }).options ?? [];
        out.push({ path: joinPath(path), message: `must be one of: ${options.map((o) => String(o)).join(', ')}` });
        continue;
      }
      // Report the branch whose type matched (e.g. the object form of a format), so the
      // message points at the real problem instead of "Invalid input".
      let best: readonly Issue[] | undefined;
      let bestScore = 0;
      for (const branch of issue.errors) {
        const score = branchScore(branch);
        if (score > bestScore) [best, bestScore] = [branch, score];
      }
      if (best) {
        flatten(best, path, out);
        continue;
      }
    }
    if ((issue.code === 'invalid_key' || issue.code === 'invalid_element') && issue.issues.length > 0) {
      flatten(issue.issues, path, out);
      continue;
    }
    out.push({ path: joinPath(path), message: describe(issue) });
  }
}

/** Flattens a ZodError into dotted paths (`scrapeOptions.formats.0`) and rule messages. */
export function formatIssues(error: z.ZodError): IssueDetail[] {
  const out: IssueDetail[] = [];
  flatten(error.issues, [], out);
  return out;
}

/** One line for error messages: `limit: must be at least 1; url: is required`. */
export function summarizeIssues(error: z.ZodError): string {
  return formatIssues(error)
    .map((d) => (d.path ? `${d.path}: ${d.message}` : d.message))
    .join('; ');
}

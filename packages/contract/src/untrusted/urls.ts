// Every URL a request or a pipeline input names, found by the keys the contract gives URLs, so
// a new endpoint's `url`/`urls`/`webhook` is covered without listing it here.
import { privateUrlReason } from './address.js';

export interface AddressIssue {
  path: string;
  message: string;
}

const URL_KEYS = new Set(['url', 'urls', 'webhook', 'webhookUrl']);

/** Issues for each URL in `value` whose host is private; empty when every host may be fetched. */
export function privateUrlIssues(value: unknown): AddressIssue[] {
  const issues: AddressIssue[] = [];
  walk(value, [], false, issues);
  return issues;
}

function walk(value: unknown, path: Array<string | number>, isUrl: boolean, issues: AddressIssue[]): void {
  if (typeof value === 'string') {
    const reason = isUrl ? privateUrlReason(value) : undefined;
    if (reason) issues.push({ path: path.join('.'), message: reason });
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => walk(item, [...path, i], isUrl, issues));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) walk(item, [...path, key], URL_KEYS.has(key), issues);
  }
}

// Every URL a request or a pipeline input names, found by the keys the contract gives URLs, so
// a new endpoint's `url`/`urls`/`webhook` is covered without listing it here.
import { hostKind, privateAddressRule } from './address.js';
import { allowsHost, NO_PRIVATE_ADDRESSES, urlPort, type AddressAllowance } from './allowance.js';

export interface AddressIssue {
  path: string;
  message: string;
}

const URL_KEYS = new Set(['url', 'urls', 'webhook', 'webhookUrl']);

/**
 * Issues for each URL in `value` whose host is private and not allowed; empty when every host
 * may be fetched.
 */
export function privateUrlIssues(value: unknown, allowance: AddressAllowance = NO_PRIVATE_ADDRESSES): AddressIssue[] {
  const issues: AddressIssue[] = [];
  if (!allowance.all) walk(value, [], false, allowance, issues);
  return issues;
}

/**
 * Why a URL may not be fetched on a tenant's word, or undefined when its host may be: a public
 * address, a name (judged after DNS, where the worker connects), or a private host the allowance
 * lists.
 */
export function privateUrlReason(url: string, allowance: AddressAllowance = NO_PRIVATE_ADDRESSES): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined; // not a URL: the schema's own rule reports it
  }
  const kind = hostKind(parsed.hostname);
  if (kind === 'public' || kind === 'name') return undefined;
  const port = urlPort(parsed);
  if (allowsHost(allowance, parsed.hostname, port)) return undefined;
  return privateAddressRule(parsed.hostname, kind, port ? `${parsed.hostname}:${port}` : parsed.hostname);
}

function walk(value: unknown, path: Array<string | number>, isUrl: boolean, allowance: AddressAllowance, issues: AddressIssue[]): void {
  if (typeof value === 'string') {
    const reason = isUrl ? privateUrlReason(value, allowance) : undefined;
    if (reason) issues.push({ path: path.join('.'), message: reason });
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => walk(item, [...path, i], isUrl, allowance, issues));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) walk(item, [...path, key], URL_KEYS.has(key), allowance, issues);
  }
}

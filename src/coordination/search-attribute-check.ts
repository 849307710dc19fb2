// Whether a namespace has the search attributes this package sets, and the one `temporal`
// command that registers the missing ones. `webdata doctor` reports it; a start refused for an
// unregistered attribute is turned into one line naming it and that command.
import type { Client, ConnectionLike } from '@temporalio/client';
import { SearchAttributeType } from '@temporalio/common';
import { SEARCH_ATTRIBUTES } from '../search-attributes.js';

/** A key of SEARCH_ATTRIBUTES (the SDK exports its type only through defineSearchAttributeKey). */
type Key = (typeof SEARCH_ATTRIBUTES)[number];

/** The `--type` value of the temporal CLI (and of the server's list) for each SDK type. */
const CLI_TYPE: Record<SearchAttributeType, string> = {
  [SearchAttributeType.TEXT]: 'Text',
  [SearchAttributeType.KEYWORD]: 'Keyword',
  [SearchAttributeType.INT]: 'Int',
  [SearchAttributeType.DOUBLE]: 'Double',
  [SearchAttributeType.BOOL]: 'Bool',
  [SearchAttributeType.DATETIME]: 'Datetime',
  [SearchAttributeType.KEYWORD_LIST]: 'KeywordList',
};

// temporal.api.enums.v1.IndexedValueType, by its wire values (@temporalio/proto is not a
// dependency of the package, and these numbers are part of the protocol).
const INDEXED_TYPE: Record<number, string> = { 1: 'Text', 2: 'Keyword', 3: 'Int', 4: 'Double', 5: 'Bool', 6: 'Datetime', 7: 'KeywordList' };

export function cliType(key: Key): string {
  return CLI_TYPE[key.type];
}

export interface SearchAttributeReport {
  namespace: string;
  /** Attributes the package sets that the namespace lacks. */
  missing: Key[];
  /** Attributes registered with another type than the package's: `actual` is the namespace's. */
  wrongType: Array<{ key: Key; actual: string }>;
}

/** Reads the namespace's custom search attributes and compares them with the package's. */
export async function checkSearchAttributes(connection: ConnectionLike, namespace: string, keys: readonly Key[] = SEARCH_ATTRIBUTES): Promise<SearchAttributeReport> {
  const listed = await connection.operatorService.listSearchAttributes({ namespace });
  const custom = listed.customAttributes ?? {};
  const missing: Key[] = [];
  const wrongType: SearchAttributeReport['wrongType'] = [];
  for (const key of keys) {
    const registered = custom[key.name];
    if (registered === undefined) missing.push(key);
    else if (INDEXED_TYPE[registered] !== cliType(key)) wrongType.push({ key, actual: INDEXED_TYPE[registered] ?? String(registered) });
  }
  return { namespace, missing, wrongType };
}

/** One `temporal operator search-attribute create` for all the keys (the CLI takes repeated --name/--type). */
export function registerCommand(namespace: string, keys: readonly Key[]): string {
  return `temporal operator search-attribute create --namespace ${namespace} ${keys.map((k) => `--name ${k.name} --type ${cliType(k)}`).join(' ')}`;
}

/** `WebdataTenant (Keyword), WebdataPages (Int)` */
export function namesWithTypes(keys: readonly Key[]): string {
  return keys.map((k) => `${k.name} (${cliType(k)})`).join(', ');
}

// The server's words for an unregistered attribute: its validator, and the SQL visibility's mapper.
const UNDEFINED_ATTRIBUTE = /search attribute (\w+) is not defined|no mapping defined for search attribute (\w+)/i;

/** The attribute a failure says is not registered on the namespace (looks through the cause chain). */
export function undefinedSearchAttribute(err: unknown): string | undefined {
  const seen = new Set<unknown>();
  for (let e = err; e !== null && typeof e === 'object' && !seen.has(e); e = (e as { cause?: unknown }).cause) {
    seen.add(e);
    const { message, details } = e as { message?: unknown; details?: unknown };
    for (const text of [details, message]) {
      const m = typeof text === 'string' ? UNDEFINED_ATTRIBUTE.exec(text) : null;
      if (m) return m[1] ?? m[2];
    }
  }
  return undefined;
}

/** A start refused because the namespace lacks a search attribute the package sets. Not retryable. */
export class SearchAttributeMissingError extends Error {
  override readonly name = 'SearchAttributeMissingError';
  readonly kind = 'search_attribute_missing' as const;
  readonly retryable = false;
  constructor(
    readonly namespace: string,
    /** The attribute the server named, then every other one the namespace lacks. */
    readonly attributes: string[],
    /** The command that registers them all. */
    readonly command: string,
    options?: { cause?: unknown },
  ) {
    const named = attributes.length === 1 ? `the search attribute ${attributes[0]}` : `the search attributes ${attributes.join(', ')}`;
    super(`namespace ${namespace} lacks ${named} that webdata-temporal sets on its runs; register ${attributes.length === 1 ? 'it' : 'them'} once (docs/operations.md): ${command}`, options);
  }
}

/**
 * Runs a start; when the server refuses it for an unregistered search attribute, throws a
 * SearchAttributeMissingError naming it and every other missing one, with the command.
 */
export async function withSearchAttributeHint<T>(client: Client, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (err) {
    const name = undefinedSearchAttribute(err);
    if (name === undefined) throw err;
    const namespace = client.options.namespace;
    const named = SEARCH_ATTRIBUTES.find((k) => k.name === name);
    let missing: Key[] = named ? [named] : [];
    try {
      const report = await checkSearchAttributes(client.connection, namespace);
      missing = [...missing, ...report.missing.filter((k) => k.name !== name)];
    } catch {
      // Listing needs the operator API: without it, the attribute the server named is enough.
    }
    const command = missing.length > 0 ? registerCommand(namespace, missing) : `temporal operator search-attribute create --namespace ${namespace} --name ${name} --type Keyword`;
    throw new SearchAttributeMissingError(namespace, named ? missing.map((k) => k.name) : [name, ...missing.map((k) => k.name)], command, { cause: err });
  }
}

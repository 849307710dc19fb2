// Tokens and normalized text, shared by the index, the query filters and related: search.

/** Lowercase words and numbers (any script). */
export function tokenize(text: string): string[] {
  return text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((t) => t.length > 0);
}

/** Words separated by single spaces, padded, so " phrase " finds whole-word phrases. */
export function normalized(text: string): string {
  return ` ${tokenize(text).join(' ')} `;
}

export function containsPhrase(haystackNormalized: string, phrase: string): boolean {
  const needle = tokenize(phrase).join(' ');
  return needle.length > 0 && haystackNormalized.includes(` ${needle} `);
}

/** The URL as searchable text: host, decoded path and query, camelCase split. */
export function urlText(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  let text = `${u.hostname} ${u.pathname} ${u.search}`;
  try {
    text = decodeURIComponent(text);
  } catch {
    // keep the encoded form
  }
  return text.replace(/([a-z])([A-Z])/g, '$1 $2');
}

/** Common English words dropped from free-text queries (unless the query has nothing else). */
export const STOPWORDS = new Set([
  'a', 'an', 'the', 'of', 'and', 'or', 'to', 'for', 'in', 'on', 'at', 'by', 'with', 'from', 'is', 'are', 'was', 'were',
  'be', 'how', 'what', 'which', 'who', 'why', 'when', 'where', 'do', 'does', 'i', 'my', 'me', 'it', 'this', 'that',
]);

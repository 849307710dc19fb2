// Keeps the API key out of anything the client hands back (messages, details, bodies),
// also when a server echoes the Authorization header in an error.
export const REDACTED = '[REDACTED]';

export function redactString(text: string, secret: string | undefined): string {
  let out = text.replace(/(Bearer\s+)[^\s"',;]+/gi, `$1${REDACTED}`);
  if (secret) out = out.split(secret).join(REDACTED);
  return out;
}

/** Deep copy of a JSON value with every string redacted. */
export function redactValue(value: unknown, secret: string | undefined, depth = 0): unknown {
  if (typeof value === 'string') return redactString(value, secret);
  if (value === null || typeof value !== 'object' || depth > 20) return value;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, secret, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[redactString(k, secret)] = redactValue(v, secret, depth + 1);
  return out;
}

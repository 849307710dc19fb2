// Explicit crawl request fields over the ones a prompt generated.

/**
 * Explicitly set request fields always win over generated ones (reference 4.5 `prompt`);
 * a field counts as set when it is not undefined (an explicit [] or false wins too).
 */
export function mergePromptOptions<E extends object, P extends object>(explicit: E, proposed: P): Omit<P, keyof E> & E {
  const merged: Record<string, unknown> = { ...(proposed as Record<string, unknown>) };
  for (const [key, value] of Object.entries(explicit)) if (value !== undefined) merged[key] = value;
  return merged as Omit<P, keyof E> & E;
}

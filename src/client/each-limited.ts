// Runs `fn` over the items with at most `limit` calls in flight: an erasure reads and deletes one
// execution per request, and a large tenant has thousands; one after the other would take long,
// all at once would flood the server.
export async function eachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++];
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

// An activity proxy whose every call goes through `wrap`: both ways of calling an activity
// (`proxy.name(...args)` and `proxy.name.executeWithOptions(options, args)`) reach it, with the
// call's own options. How run-priority.ts adds the run's priority and local-activity-failures.ts
// wraps a local activity's failure.
type Call<O> = ((...args: unknown[]) => Promise<unknown>) & {
  executeWithOptions(options: O, args: unknown[]): Promise<unknown>;
};

/** `wrap` gets the activity's name and its executeWithOptions, and gives the one the proxy hands out. */
export function mapActivityCalls<T extends object, O>(
  activities: T,
  wrap: (name: string, executeWithOptions: (options: O, args: unknown[]) => Promise<unknown>) => (options: O, args: unknown[]) => Promise<unknown>,
): T {
  return new Proxy(activities, {
    get(target, name) {
      const plain = Reflect.get(target, name) as Call<O> | undefined;
      if (typeof plain !== 'function') return plain;
      const executeWithOptions = wrap(String(name), (options, args) => plain.executeWithOptions(options, args));
      return Object.assign((...args: unknown[]) => executeWithOptions({} as O, args), { executeWithOptions });
    },
  });
}

// Schemas built on first use instead of at import. The worker evaluates the workflow modules
// again for every run (each run has its own module cache, issue 27), so a schema built at module
// top level is paid by every run whether its input uses it or not. The workflows' own input checks
// are preloaded (workflows/preload.ts): their schemas, built by the first run that needs them, are
// kept here for every later run of the worker (held in closures, which the SDK's freeze of
// preloaded modules does not reach; zod cannot parse with a frozen schema).
import { z } from 'zod';

/** `build()` on the first call, its result on every later one. */
export function once<T>(build: () => T): () => T {
  let built: T | undefined;
  return () => (built ??= build());
}

/** Shapes kept per object (sets of present keys); more are built again as needed. */
const MAX_SHAPES = 256;

type Builders = Record<string, () => z.ZodType>;
type Built<B extends Builders> = { [K in keyof B]: ReturnType<B[K]> };

/**
 * A strict object whose fields are built when an input has them. zod skips an absent optional
 * field without looking at its schema (no issue, no output key), so for a key the input lacks a
 * shared stand-in takes the field's place; the object keeps every key, in order, so unknown keys,
 * issue order and output read exactly as with the whole object. Fields named in `always` (the
 * required ones and those with a default, which act on absence) are always built; every other
 * field must be optional (test/unit/lazy-schema.test.ts checks the workflow inputs).
 */
export function lazyStrictObject<B extends Builders>(fields: B, always: ReadonlyArray<keyof B & string>) {
  type Full = z.ZodObject<Built<B>, z.core.$strict>;
  const keys = Object.keys(fields) as Array<keyof B & string>;
  const field = Object.fromEntries(keys.map((k) => [k, once(fields[k])])) as unknown as B;
  const needed = new Set<string>(always);
  const standIn = once(() => z.never().optional());
  const build = (present: (k: string) => boolean): Full =>
    z.strictObject(Object.fromEntries(keys.map((k) => [k, present(k) ? field[k]() : standIn()]))) as unknown as Full;
  const full = once(() => build(() => true));
  // One object per set of present keys: a client starting many runs, or a worker running them,
  // builds each shape once. Bounded: inputs with ever new sets of keys would grow it for good.
  const byKeys = new Map<string, Full>();
  return {
    /** The whole object, every field built (for types and for callers that want it all). */
    full,
    /** An object that validates `input` exactly as `full()` does, with only the fields it needs. */
    schemaFor(input: unknown): Full {
      const isObject = typeof input === 'object' && input !== null;
      const present = keys.filter((k) => needed.has(k) || (isObject && k in input));
      const signature = present.join(',');
      let schema = byKeys.get(signature);
      if (!schema) {
        const set = new Set<string>(present);
        schema = present.length === keys.length ? full() : build((k) => set.has(k));
        if (byKeys.size >= MAX_SHAPES) byKeys.clear();
        byKeys.set(signature, schema);
      }
      return schema;
    },
    /** The fields that may be left to the stand-in (for the test that they are all optional). */
    optionalFields: (): Array<[string, z.ZodType]> => keys.filter((k) => !needed.has(k)).map((k) => [k, field[k]()]),
  };
}

// Loaded once per worker, before any run (the bundle's `preloadModules`, worker/bundler-options.ts):
// zod is then shared by every run instead of evaluated again by each (issue 27: with its first
// use of each schema type, about half of what a run paid before its first command). zod and its
// use here hold no per-run state. The SDK freezes what preloading loaded, and zod completes
// parts of itself on first use (the English messages, whether `new Function` is allowed), so
// this module uses it once first: a frozen zod could no longer do that in a run.
import { z } from 'zod';

const warm = z.strictObject({ url: z.string().min(1), n: z.number().int().default(1) }).optional();
warm.safeParse({ url: '' });
warm.safeParse({ url: 'x' }, { jitless: true });

/** Nothing to import: loading this module is its purpose. */
export const preloaded = true;

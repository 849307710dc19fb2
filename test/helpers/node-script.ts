// How a test starts a TypeScript module of this repository in a process of its own: compiled
// when the test itself runs compiled (from .test-build/, scripts/test-build.mjs), through tsx
// when it runs from its sources.
import { realpathSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const COMPILED = import.meta.url.endsWith('.js');
/** The repository as this file sees it: the clone, or .test-build/. */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The `node` arguments that run `script`, a `.ts` file (absolute, or relative to the repository).
 * Compiled, it is the real path of its JavaScript twin: a module that checks whether it is the
 * main one compares process.argv[1] with its own real path.
 */
export function nodeScriptArgs(script: string): string[] {
  const path = isAbsolute(script) ? script : join(ROOT, script);
  return COMPILED ? [realpathSync(path.replace(/\.ts$/, '.js'))] : ['--conditions=webdata-source', '--import', 'tsx', path];
}

// Imported first by the markdown engines test: where npm did not install mdream's platform
// package (Node 20: its `engines` asks for 22), points mdream at the native binding that
// scripts/ensure-native-mdream.sh fetched into the cache, so that the native engine is compared
// too. mdream reads NAPI_RS_NATIVE_LIBRARY_PATH once, when it is first imported.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function mdreamVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.resolve('mdream')));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * The cached binding for this platform (`rust.<platform>-<arch>[-<libc>].node`), if the script
 * fetched one: it fetches nothing where npm installed the platform package.
 */
export function cachedNativeBinding(): string | undefined {
  if (process.env.NAPI_RS_NATIVE_LIBRARY_PATH) return undefined;
  const dir = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'webdata-temporal', `mdream-native-${mdreamVersion()}`);
  if (!existsSync(dir)) return undefined;
  const name = readdirSync(dir).find((f) => f.startsWith(`rust.${process.platform}-${process.arch}`) && f.endsWith('.node'));
  return name ? join(dir, name) : undefined;
}

export const nativeBinding = cachedNativeBinding();
if (nativeBinding) process.env.NAPI_RS_NATIVE_LIBRARY_PATH = nativeBinding;

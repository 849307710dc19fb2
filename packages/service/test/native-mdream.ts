// Imported first by the markdown engines test: where npm did not install mdream's platform
// package (Node 20: its `engines` asks for 22), points mdream at the native binding that
// scripts/ensure-native-mdream.sh fetched into the cache, so that the native engine is compared
// too. mdream reads NAPI_RS_NATIVE_LIBRARY_PATH once, when it is first imported.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function mdreamVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.resolve('mdream')));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

const PLATFORMS: Record<string, string> = { 'linux-x64': 'linux-x64-gnu', 'linux-arm64': 'linux-arm64-gnu', 'darwin-arm64': 'darwin-arm64', 'darwin-x64': 'darwin-x64' };

/** The cached binding's path when there is one and nothing else provides the native engine. */
export function cachedNativeBinding(): string | undefined {
  const platform = PLATFORMS[`${process.platform}-${process.arch}`];
  if (!platform || process.env.NAPI_RS_NATIVE_LIBRARY_PATH) return undefined;
  try {
    import.meta.resolve(`@mdream/rust-${platform}`);
    return undefined;
  } catch {
    // Not installed by npm: look in the cache.
  }
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  const binding = join(cache, 'webdata-temporal', `mdream-native-${mdreamVersion()}`, `rust.${platform}.node`);
  return existsSync(binding) ? binding : undefined;
}

export const nativeBinding = cachedNativeBinding();
if (nativeBinding) process.env.NAPI_RS_NATIVE_LIBRARY_PATH = nativeBinding;

// Finds (or builds once) the Temporal CLI that runs `temporal server start-dev`.
// Order: TEMPORAL_CLI_PATH, `temporal` on PATH, a cached build outside the clone, a fresh
// `go install` into that cache, and last the SDK's own download (needs internet).
import { spawn } from 'node:child_process';
import { accessSync, constants, mkdirSync, openSync, closeSync, rmSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { EphemeralServerExecutable } from '@temporalio/testing';

export const TEMPORAL_CLI_VERSION = 'v1.5.1';
export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal';

export type TemporalCliSource = 'env' | 'path' | 'cache' | 'built' | 'sdk-download';

export interface ResolvedTemporalCli {
  executable: EphemeralServerExecutable;
  /** Absolute path of the binary, absent when the SDK will download one. */
  path?: string;
  source: TemporalCliSource;
}

export interface ResolveOptions {
  env?: NodeJS.ProcessEnv;
  /** Where the build lands; default `$XDG_CACHE_HOME/webdata-temporal` or `~/.cache/webdata-temporal`. */
  cacheRoot?: string;
  log?: (line: string) => void;
}

export function temporalCliCacheDir(env: NodeJS.ProcessEnv = process.env, cacheRoot?: string): string {
  const root = cacheRoot ?? join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'webdata-temporal');
  return join(root, `temporal-cli-${TEMPORAL_CLI_VERSION}`);
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function findOnPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && isExecutable(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => { stderr = (stderr + chunk.toString()).slice(-4000); });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`${cmd} ${args.join(' ')} exited with ${code}: ${stderr.trim()}`));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Builds the CLI into `dir`; a lock file makes parallel test processes wait for one build. */
async function buildWithGo(go: string, dir: string, env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const binary = join(dir, 'temporal');
  const lock = join(dir, '.build.lock');
  let fd: number | undefined;
  for (;;) {
    if (isExecutable(binary)) return binary;
    try {
      fd = openSync(lock, 'wx');
      break;
    } catch {
      // Another process is building; a lock older than 30 minutes is stale.
      try {
        if (Date.now() - statSync(lock).mtimeMs > 30 * 60_000) rmSync(lock, { force: true });
      } catch { /* lock vanished: retry */ }
      await sleep(1000);
    }
  }
  try {
    if (isExecutable(binary)) return binary;
    log(`webdata-temporal: building the Temporal CLI ${TEMPORAL_CLI_VERSION} with go into ${dir} (once; takes a few minutes)`);
    await run(go, ['install', `${TEMPORAL_CLI_MODULE}@${TEMPORAL_CLI_VERSION}`], { ...env, GOBIN: dir });
    if (!isExecutable(binary)) throw new Error(`go install finished but ${binary} is missing`);
    return binary;
  } finally {
    closeSync(fd);
    rmSync(lock, { force: true });
  }
}

export async function resolveTemporalCli(options: ResolveOptions = {}): Promise<ResolvedTemporalCli> {
  const env = options.env ?? process.env;
  const log = options.log ?? ((line: string) => console.error(line));
  const existing = (path: string, source: TemporalCliSource): ResolvedTemporalCli => ({
    executable: { type: 'existing-path', path },
    path,
    source,
  });

  if (env.TEMPORAL_CLI_PATH) {
    if (!isExecutable(env.TEMPORAL_CLI_PATH)) {
      throw new Error(`TEMPORAL_CLI_PATH: ${env.TEMPORAL_CLI_PATH} is not an executable file`);
    }
    return existing(env.TEMPORAL_CLI_PATH, 'env');
  }
  const onPath = findOnPath('temporal', env);
  if (onPath) return existing(onPath, 'path');

  const dir = temporalCliCacheDir(env, options.cacheRoot);
  const cached = join(dir, 'temporal');
  if (isExecutable(cached)) return existing(cached, 'cache');

  const go = findOnPath('go', env) ?? (isExecutable('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined);
  if (go) return existing(await buildWithGo(go, dir, env, log), 'built');

  return { executable: { type: 'cached-download', downloadDir: dir }, source: 'sdk-download' };
}

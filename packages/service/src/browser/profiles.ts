// Named persistent browser storage (reference 2.2): cookies + localStorage kept as a
// Playwright storageState file per team and name. Every session with the name loads it;
// only one saver at a time writes it back on close (a second concurrent saver is a 409).
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpError } from '../core/http-error.js';

export interface ProfileSpec {
  name: string;
  saveChanges: boolean;
}

export type StorageState = { cookies: unknown[]; origins: unknown[] };

export class ProfileStore {
  private readonly savers = new Map<string, string>();

  constructor(private readonly dir: string) {}

  private key(teamId: string, name: string): string {
    return `${teamId}\u0000${name}`;
  }

  private file(teamId: string, name: string): string {
    const digest = createHash('sha256').update(this.key(teamId, name)).digest('hex').slice(0, 32);
    return join(this.dir, `${digest}.json`);
  }

  /** Reserves the saver slot for a session; 409 when another active session holds it. */
  acquireSaver(teamId: string, name: string, sessionId: string): void {
    const key = this.key(teamId, name);
    const holder = this.savers.get(key);
    if (holder && holder !== sessionId) {
      throw new HttpError(409, `Profile "${name}" is already open with saveChanges by another session; only one saver at a time`, {
        code: 'PROFILE_IN_USE',
      });
    }
    this.savers.set(key, sessionId);
  }

  releaseSaver(teamId: string, name: string, sessionId: string): void {
    const key = this.key(teamId, name);
    if (this.savers.get(key) === sessionId) this.savers.delete(key);
  }

  async load(teamId: string, name: string): Promise<StorageState | undefined> {
    try {
      return JSON.parse(await readFile(this.file(teamId, name), 'utf8')) as StorageState;
    } catch {
      return undefined;
    }
  }

  /** Atomic replace, so a crash mid-write never leaves a torn profile. */
  async save(teamId: string, name: string, state: StorageState): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const target = this.file(teamId, name);
    const tmp = `${target}.${process.pid}.${Date.now()}.tmp`;
    await writeFile(tmp, JSON.stringify(state));
    await rename(tmp, target);
  }
}

export const DEFAULT_PROFILES_DIR = join(tmpdir(), 'webdata-service-profiles');

const stores = new Map<string, ProfileStore>();

/** One store per folder, so sessions and the scrape engine share the one-saver rule. */
export function profileStore(dir: string = DEFAULT_PROFILES_DIR): ProfileStore {
  let store = stores.get(dir);
  if (!store) stores.set(dir, (store = new ProfileStore(dir)));
  return store;
}

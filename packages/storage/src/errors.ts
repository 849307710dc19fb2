// Store failures as values: a kind, whether trying again can help, and the file or lock
// concerned. Activities turn them into typed Temporal failures (see activities/failures.ts).
//
// Every kind here is retryable: each is a condition of the machine an operator can mend
// (free the disk, fix the permissions, remount read-write, end the stuck holder), and
// appends are idempotent, so a later attempt finishes the work without storing a page twice.
// A deployment that prefers to fail fast lists the types in `nonRetryableErrorTypes`.

export type StoreErrorKind =
  /** Another writer held the lock for longer than the store waits. */
  | 'lock_timeout'
  /** This writer's lock was broken (its lease ran out) before it wrote: it wrote nothing. */
  | 'lock_lost'
  /** ENOSPC or EDQUOT: the disk or the quota is full. */
  | 'no_space'
  /** EACCES or EPERM: the process may not write there. */
  | 'permission'
  /** EROFS: the file system is mounted read-only. */
  | 'read_only';

export class StoreError extends Error {
  override readonly name = 'StoreError';
  readonly retryable = true;

  constructor(
    readonly kind: StoreErrorKind,
    message: string,
    readonly path: string,
    /** The errno code behind it, when one is. */
    readonly code?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const KIND_OF_CODE: Record<string, { kind: StoreErrorKind; says: string }> = {
  ENOSPC: { kind: 'no_space', says: 'no space left on the device' },
  EDQUOT: { kind: 'no_space', says: 'disk quota exceeded' },
  EACCES: { kind: 'permission', says: 'permission denied' },
  EPERM: { kind: 'permission', says: 'operation not permitted' },
  EROFS: { kind: 'read_only', says: 'the file system is read-only' },
};

/** `err` as a StoreError when it is one of the errno failures above; otherwise unchanged. */
export function toStoreError(err: unknown, path: string): unknown {
  if (err instanceof StoreError) return err;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const known = code === undefined ? undefined : KIND_OF_CODE[code];
  if (!known) return err;
  const where = (err as NodeJS.ErrnoException).path ?? path;
  return new StoreError(known.kind, `Cannot write ${where}: ${known.says} (${code})`, where, code, { cause: err });
}

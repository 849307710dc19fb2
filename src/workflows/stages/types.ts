export type StageOutcome =
  | { kind: 'ok' }
  | { kind: 'skipped'; reason: string }
  | { kind: 'failed'; reason: string; jobId?: string }
  | { kind: 'continue-as-new' };

// The task queue the package's worker polls unless told otherwise: the client starts runs on it,
// and the ledger and governor calls start those workflows on it.
export const DEFAULT_TASK_QUEUE = 'webdata';

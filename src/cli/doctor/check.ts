// One check of `webdata doctor`: its status, what it found and, when not ok, what to do.
import { causeChain } from '../errors.js';

export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface CheckResult {
  /** What was checked, e.g. `search attributes`. */
  name: string;
  status: CheckStatus;
  /** What was found, in one sentence. */
  detail: string;
  /** What to do about it; a command comes last on the line, to be copied whole. */
  fix?: string;
}

const NAME_WIDTH = 18;

/** `fail  search attributes   namespace legacy lacks ... Fix: temporal operator ...` */
export function formatCheck(check: CheckResult): string {
  const fix = check.fix ? ` Fix: ${check.fix}` : '';
  return `${check.status.padEnd(5)} ${check.name.padEnd(NAME_WIDTH)} ${check.detail}${fix}`;
}

/** A check that could not be made because an earlier one failed. */
export function notChecked(name: string, because: string): CheckResult {
  return { name, status: 'warn', detail: `not checked: ${because}` };
}

/** Runs a check; an error it did not expect becomes a failed line, not a crash of the command. */
export async function guarded(name: string, check: () => Promise<CheckResult>): Promise<CheckResult> {
  try {
    return await check();
  } catch (err) {
    return { name, status: 'fail', detail: `the check itself failed: ${causeChain(err)}` };
  }
}

// webdataTeamGovernor: one long-lived workflow per API team, a fair semaphore with leases shared
// by every worker of a fleet. Jobs ask for a share of the team's concurrency (an update that joins
// the line and answers at once; the governor signals the job's run when it grants later), renew it while they run
// and give it back when they end; a lease its holder stops renewing expires; a 429 pauses every
// grant. Rules: team-governor-rules.ts.
import { allHandlersFinished, condition, continueAsNew, getExternalWorkflowHandle, patched, setHandler, workflowInfo } from '@temporalio/workflow';
import { acquireShareUpdate, governorStatusQuery, pauseTeamUpdate, releaseShareUpdate, renewShareUpdate, shareGrantedSignal, shareQuery } from './team-governor-messages.js';
import { answer, grantAll, MAX_OVERCOMMIT, newGovernor, nextWake, pause, release, renew, request, status, type GovernorState } from './team-governor-rules.js';

/** Governors whose history began before the newcomers' headroom grant as they did then. */
const NEWCOMER_HEADROOM = 'governor-newcomer-headroom';
/**
 * Governors whose history began before grant notices keep no `notify` and signal no one: their
 * waiters ask again often enough to stay in line and read their grant from the answer.
 */
const GRANT_NOTICES = 'governor-grant-notices';

const KEY = /^[A-Za-z0-9._/:#-]{1,300}$/;
const TENANT = /^[A-Za-z0-9._-]{1,64}$/;

function checkKey(key: unknown): void {
  if (typeof key !== 'string' || !KEY.test(key)) throw new Error('key: must be 1-300 letters, digits or ._/:#-');
}

function checkCount(name: string, value: unknown): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw new Error(`${name}: must be a whole number, 1 or more`);
}

export async function webdataTeamGovernor(input: { team: string; concurrency: number }, carried?: GovernorState): Promise<void> {
  const state = carried ?? newGovernor(input.team, input.concurrency);
  state.newcomerHeadroom = patched(NEWCOMER_HEADROOM);
  state.notices = patched(GRANT_NOTICES);
  // Grants whose run waits for a notice: sent by the main loop (a handler sends no command of its own).
  const outbox: string[] = [];
  const grant = () => {
    for (const key of grantAll(state, Date.now())) if (state.leases[key]?.notify !== undefined) outbox.push(key);
  };
  // Set by every message: the main loop grants again and re-arms its timer.
  let changed = false;
  const touch = () => {
    grant();
    changed = true;
  };
  // A waiting run learns of its grant at once, instead of each of a fleet's waiting jobs reading
  // the governor every second (at a few hundred runs that alone kept the governor's worker and
  // the server too busy to grant anything). A notice that fails found its run closed: the lease
  // comes back.
  const sendNotices = async () => {
    const keys = outbox.splice(0);
    await Promise.all(keys.map(async (key) => {
      const lease = state.leases[key];
      if (!lease?.notify) return;
      try {
        await getExternalWorkflowHandle(lease.notify).signal(shareGrantedSignal, { key, share: lease.share, expiresAt: lease.expiresAt });
      } catch {
        if (state.leases[key] === lease) {
          release(state, key);
          touch();
        }
      }
    }));
  };

  setHandler(governorStatusQuery, () => status(state));
  setHandler(shareQuery, ({ key }) => answer(state, key));
  setHandler(acquireShareUpdate, (req) => {
    request(state, req, Date.now());
    touch();
    const now = answer(state, req.key);
    // Granted in the answer itself: nothing to tell the run later.
    if (now.granted && outbox.includes(req.key)) outbox.splice(outbox.indexOf(req.key), 1);
    return now;
  }, {
    validator: (req) => {
      checkKey(req?.key);
      if (typeof req.tenant !== 'string' || !TENANT.test(req.tenant)) throw new Error('tenant: must be 1-64 letters, digits, dot, dash or underscore');
      checkCount('want', req.want);
      checkCount('concurrency', req.concurrency);
      if (req.overcommit !== undefined && !(typeof req.overcommit === 'number' && req.overcommit >= 1 && req.overcommit <= MAX_OVERCOMMIT)) {
        throw new Error(`overcommit: must be a number from 1 to ${MAX_OVERCOMMIT}`);
      }
      if (req.ttlMs !== undefined) checkCount('ttlMs', req.ttlMs);
      if (req.notify !== undefined && (typeof req.notify !== 'string' || !KEY.test(req.notify))) throw new Error('notify: must be a workflow id of 1-300 letters, digits or ._/:#-');
    },
  });
  setHandler(renewShareUpdate, ({ key, tenant, share }) => {
    const kept = renew(state, key, tenant, share, Date.now());
    touch();
    return kept;
  }, { validator: (arg) => { checkKey(arg?.key); checkCount('share', arg.share); } });
  setHandler(releaseShareUpdate, ({ key }) => {
    release(state, key);
    touch();
  }, { validator: (arg) => checkKey(arg?.key) });
  setHandler(pauseTeamUpdate, ({ until }) => {
    pause(state, until);
    touch();
    return state.pausedUntil;
  }, { validator: (arg) => checkCount('until', arg?.until) });

  // Lives as long as the team is used; expiries and the pause's end need no message to act.
  while (!workflowInfo().continueAsNewSuggested) {
    changed = false;
    grant();
    if (outbox.length > 0) {
      await sendNotices();
      continue;
    }
    const wake = nextWake(state, Date.now());
    const woken = () => changed || workflowInfo().continueAsNewSuggested;
    if (wake === undefined) await condition(woken);
    else await condition(woken, Math.max(1, wake - Date.now()));
  }
  // Places in line and leases are carried over; waiting jobs ask the same workflow id again.
  // Every grant told first: a notice sent now reaches the run faster than its next ask.
  for (;;) {
    await condition(allHandlersFinished);
    if (outbox.length === 0) break;
    await sendNotices();
  }
  await continueAsNew<typeof webdataTeamGovernor>(input, state);
}

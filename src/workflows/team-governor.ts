// webdataTeamGovernor: one long-lived workflow per API team, a fair semaphore with leases shared
// by every worker of a fleet. Jobs ask for a share of the team's concurrency (an update that joins
// the line and answers at once; the job then polls a query), renew it while they run and give it back when they end; a lease
// its holder stops renewing expires; a 429 pauses every grant. Rules: team-governor-rules.ts.
import { allHandlersFinished, condition, continueAsNew, patched, setHandler, workflowInfo } from '@temporalio/workflow';
import { acquireShareUpdate, governorStatusQuery, pauseTeamUpdate, releaseShareUpdate, renewShareUpdate, shareQuery } from './team-governor-messages.js';
import { answer, grantAll, MAX_OVERCOMMIT, newGovernor, nextWake, pause, release, renew, request, status, type GovernorState } from './team-governor-rules.js';

/** Governors whose history began before the newcomers' headroom grant as they did then. */
const NEWCOMER_HEADROOM = 'governor-newcomer-headroom';

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
  // Set by every message: the main loop grants again and re-arms its timer.
  let changed = false;
  const touch = () => {
    grantAll(state, Date.now());
    changed = true;
  };

  setHandler(governorStatusQuery, () => status(state));
  setHandler(shareQuery, ({ key }) => answer(state, key));
  setHandler(acquireShareUpdate, (req) => {
    request(state, req, Date.now());
    touch();
    return answer(state, req.key);
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
    grantAll(state, Date.now());
    const wake = nextWake(state, Date.now());
    const woken = () => changed || workflowInfo().continueAsNewSuggested;
    if (wake === undefined) await condition(woken);
    else await condition(woken, Math.max(1, wake - Date.now()));
  }
  // Places in line and leases are carried over; waiting jobs keep polling the same workflow id.
  await condition(allHandlersFinished);
  await continueAsNew<typeof webdataTeamGovernor>(input, state);
}

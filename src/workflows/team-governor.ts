// webdataTeamGovernor: one long-lived workflow per API team, a fair semaphore with leases shared
// by every worker of a fleet. Jobs ask for a share of the team's concurrency (a signal that joins
// the line; the governor signals the job's run when it grants), renew it while they run and give
// it back when they end; a lease its holder stops renewing expires; a 429 pauses every grant.
// Rules: team-governor-rules.ts.
import { allHandlersFinished, condition, continueAsNew, getExternalWorkflowHandle, deprecatePatch, setHandler, workflowInfo } from '@temporalio/workflow';
import { acquireShareUpdate, askShareSignal, governorStatusQuery, pauseTeamUpdate, releaseShareUpdate, renewShareUpdate, shareGrantedSignal, shareQuery } from '../shared/team-governor-messages.js';
import { answer, checkAcquireRequest, checkCount, checkKey, grantAll, newGovernor, nextWake, pause, release, renew, request, status, type GovernorState } from '../shared/team-governor-rules.js';

export async function webdataTeamGovernor(input: { team: string; concurrency: number }, carried?: GovernorState): Promise<void> {
  const state = carried ?? newGovernor(input.team, input.concurrency);
  // Newcomers get headroom (shared/team-governor-rules.ts). A governor lives on by continue-as-new,
  // so one started on 0.x may be moved to 1.0 mid-run: the patch stays deprecated (one marker a
  // run, none asked of a history without it) so that its 0.x history, marker and all, replays.
  deprecatePatch('governor-newcomer-headroom');
  state.newcomerHeadroom = true;
  // Grants whose run waits for a notice: sent by the main loop (a handler sends no command of its own).
  const outbox = new Set<string>();
  const grant = () => {
    for (const key of grantAll(state, Date.now())) if (state.leases[key]?.notify !== undefined) outbox.add(key);
  };
  // Set by every message: the main loop grants again and re-arms its timer.
  let changed = false;
  const touch = () => {
    grant();
    changed = true;
  };
  // A run that asked by signal learns of its grant by signal, instead of each of a fleet's
  // waiting jobs reading the governor every second and asking by update (at 200 runs that kept
  // the governor's worker and the server too busy to grant anything). Only asks by signal carry
  // `notify`, so a history from before them sends nothing here. A notice that fails found its
  // run closed: the lease comes back.
  const sendNotices = async () => {
    const keys = [...outbox];
    outbox.clear();
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
  // Runs from before asks by signal, and tools: answered at once, told nothing later.
  setHandler(acquireShareUpdate, (req) => {
    request(state, { ...req, notify: undefined }, Date.now());
    touch();
    return answer(state, req.key);
  }, { validator: checkAcquireRequest });
  setHandler(askShareSignal, (req) => {
    // The asking activity checked it before it signalled; a stray signal cannot be refused, only ignored.
    try {
      checkAcquireRequest(req);
    } catch {
      return;
    }
    request(state, req, Date.now());
    touch();
    // Held already (asked again after a continue-as-new, or a notice lost): told again.
    if (state.leases[req.key]) outbox.add(req.key);
  });
  setHandler(renewShareUpdate, ({ key, tenant, share }) => {
    const kept = renew(state, key, tenant, share, Date.now());
    touch();
    return kept;
  }, { validator: (arg) => { checkKey('key', arg?.key); checkCount('share', arg.share); } });
  setHandler(releaseShareUpdate, ({ key }) => {
    release(state, key);
    touch();
  }, { validator: (arg) => checkKey('key', arg?.key) });
  setHandler(pauseTeamUpdate, ({ until }) => {
    pause(state, until);
    touch();
    return state.pausedUntil;
  }, { validator: (arg) => checkCount('until', arg?.until) });

  // Lives as long as the team is used; expiries and the pause's end need no message to act.
  while (!workflowInfo().continueAsNewSuggested) {
    changed = false;
    grant();
    if (outbox.size > 0) {
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
    if (outbox.size === 0) break;
    await sendNotices();
  }
  await continueAsNew<typeof webdataTeamGovernor>(input, state);
}

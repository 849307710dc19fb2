// Every test file of this folder in one process, so that they share one time-skipping test server
// and one worker (helpers/time-skipping.ts): each file alone pays about 5 s to start both.
// scripts/test-files.mjs runs this file in place of the folder's files, and refuses a run in
// which a file of the folder is neither imported here nor named on an `alone:` line. Each file
// still runs alone with `node --test`.
//
// alone: cancellation.test.ts
// Its runs end cancelled while their held activities are still heartbeating. Run before
// webhook-poll on one test server, the next timer to be skipped never fired (its run waited for
// good; seen every time, cause inside the Java test server not found). Its own process keeps
// that from the other files.
import './batch-append.test.js';
import './budget.test.js';
import './continue-as-new.test.js';
import './figures.test.js';
import './preloaded-bundle.test.js';
import './progress-rule.test.js';
import './stage-switches.test.js';
import './support-repair.test.js';
import './tail.test.js';
import './team-governor.test.js';
import './tenant-limits.test.js';
import './webhook-poll.test.js';

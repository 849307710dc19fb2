// The files of this folder in one process (scripts/test-files.mjs runs this file in place of
// them), to pay Node, the TypeScript loader and the stack's imports once. tenant-budget-wait runs
// alone, beside it: it is the longest. A new file here must be imported below or named alone;
// each still runs alone with `node --test`.
// alone: tenant-budget-wait.test.ts
import './cli-tenant.test.js';
import './governor-rules.test.js';
import './governor-stack.test.js';
import './ledger-rules.test.js';
import './tenant-budget.test.js';
import './tenant-rules.test.js';

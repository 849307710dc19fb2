// The files of this folder in one process (scripts/test-files.mjs runs this file in place of
// them), to pay Node, the TypeScript loader and the stack's imports once. A new file here must be
// imported below or named on an `// alone: <file>` line; each still runs alone with `node --test`.
import './cli-tenant.test.js';
import './erase.test.js';
import './governor-rules.test.js';
import './governor-stack.test.js';
import './ledger-rules.test.js';
import './limit-rules.test.js';
import './tenant-budget.test.js';
import './tenant-budget-wait.test.js';
import './tenant-limits.test.js';
import './tenant-rules.test.js';

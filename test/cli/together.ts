// The files of this folder in one process (scripts/test-files.mjs runs this file in place of
// them), to pay Node, the TypeScript loader and the stack's imports once. cli.test.ts runs alone,
// beside it: it is the longest. A new file here must be imported below or named alone; each still
// runs alone with `node --test`.
// alone: cli.test.ts
import './agent-flags.test.js';
import './doctor.test.js';
import './monitor.test.js';
import './parse.test.js';
import './summary.test.js';
import './webhooks.test.js';

// The files of this folder in one process (scripts/test-files.mjs runs this file in place of
// them), to pay Node, the TypeScript loader and the stack's imports once. worker-crash runs alone,
// beside it: it is the longest. A new file here must be imported below or named alone; each still
// runs alone with `node --test`.
// alone: worker-crash.test.ts
import './oss-pipeline.test.js';
import './smoke.test.js';
import './upgrade.test.js';
import './versioning.test.js';

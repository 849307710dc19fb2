// The files of this folder in one process (scripts/test-files.mjs runs this file in place of
// them), to pay Node, the TypeScript loader and the stack's imports once. A new file here must be
// imported below; each still runs alone with `node --test`.
import './metrics.test.js';
import './request-metrics.test.js';
import './traces.test.js';

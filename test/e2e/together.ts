// Every test file of this folder in one process (scripts/test-files.mjs runs this file in place
// of them): each file alone pays 3-4 s of CPU for Node, the TypeScript loader and the imports of
// the stack, which every file here starts (one after another, each its own). A new file here must
// be imported below; each still runs alone with `node --test`.
import './agent-stage.test.js';
import './batch-append.test.js';
import './changes.test.js';
import './follower-handover.test.js';
import './lost-job.test.js';
import './parse-documents.test.js';
import './pipeline.test.js';
import './robots.test.js';
import './streaming-collect.test.js';
import './structured-formats.test.js';
import './temporal-ui.test.js';

// Every test file of this folder in one process (scripts/test-files.mjs runs this file in place
// of them): each file alone pays about a second or two for Node, the TypeScript loader and its
// imports. A new file here must be imported below; each still runs alone with `node --test`.
import './address-allowance.test.js';
import './agent-extract-parse.test.js';
import './agent-model.test.js';
import './client.test.js';
import './main-content-compare.test.js';
import './monitor-client.test.js';
import './retry-after.test.js';
import './schemas.test.js';
import './webhooks.test.js';

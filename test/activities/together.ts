// Every test file of this folder in one process (scripts/test-files.mjs runs this file in place
// of them): each file alone pays about a second or two for Node, the TypeScript loader and its
// imports. A new file here must be imported below; each still runs alone with `node --test`.
import './activities.test.js';
import './batch-append.test.js';
import './changes.test.js';
import './error-kinds.test.js';
import './oss-compat.test.js';
import './robots.test.js';

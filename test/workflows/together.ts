// Every test file of this folder in one process (scripts/test-files.mjs runs this file in place
// of them): each file alone pays about a second or two for Node, the TypeScript loader and its
// imports. A new file here must be imported below; each still runs alone with `node --test`.
import './agent-parse-rules.test.js';
import './input-check.test.js';
import './lazy-schema.test.js';
import './stall-settings.test.js';
import './recover-patterns.test.js';
import './rules.test.js';
import './worker-settings.test.js';

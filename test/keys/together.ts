// The files of this folder in one process (scripts/test-files.mjs runs this file in place of
// them). A new file here must be imported below or named on an `// alone: <file>` line.
import './key-refs-stack.test.js';
import './resolvers.test.js';

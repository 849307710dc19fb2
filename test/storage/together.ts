// The files of this folder in one process (scripts/test-files.mjs runs this file in place of
// them), to pay Node, the TypeScript loader and their imports once. `npm run test:unit` takes only
// the files that start no server, and runs those one by one. A new file here must be imported
// below; each still runs alone with `node --test`.
import './filesystem-locks.test.js';
import './filesystem-store.test.js';
import './postgres-store.test.js';

// The files of this folder in one process (scripts/test-files.mjs runs this file in place of
// them), to pay Node, the TypeScript loader and the stack's imports once. untrusted-input runs
// alone: it turns WEBDATA_ALLOW_PRIVATE_ADDRESSES off for its whole process. A new file here must
// be imported below or named alone; each still runs alone with `node --test`.
// alone: untrusted-input.test.ts
import './abandoned-requests.test.js';
import './client-validation.test.js';
import './secrets.test.js';
import './service-validation.test.js';
import './team-isolation.test.js';
import './untrusted-fetch.test.js';

// examples/backend's own tests (workflow, HTTP starter, activity), run by `npm test` from the
// repository. The example imports the package by its name, as a copy installed from npm does:
// here that name is linked to this clone (node_modules/webdata-temporal -> ..), and its tests
// find the time-skipping test server the way its README says (TEMPORAL_TEST_SERVER_PATH, here the
// repository's offline cache). Imported after both are set, so they register in this process
// and the runner counts them.
import { lstatSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testServerPath } from '../helpers/time-skipping.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const link = join(ROOT, 'node_modules', 'webdata-temporal');
try {
  lstatSync(link);
} catch {
  symlinkSync('..', link);
}
process.env.TEMPORAL_TEST_SERVER_PATH ||= testServerPath();

// Named at run time: the repository's typecheck stops here, the example has its own tsconfig.
const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
for (const name of ['activities', 'server', 'workflows']) await import(`../../examples/backend/src/${name}.test.${ext}`);

// Which test files a run takes, and in what order. A group is a folder name on a test file's
// path; without groups, every folder except the opt-in ones. `unit` files are those of the fast
// groups that start no server of their own (no Temporal dev server, no PostgreSQL): the time-
// skipping test server of test/unit-workflows is allowed.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { buildTestTree, builtTestFile } from './test-build.mjs';

const roots = ['test', 'packages/service/test'];

// Groups that run only when named (`node scripts/run-tests.mjs scale`), never by default:
// test/scale starts a real Temporal server on PostgreSQL (scripts/temporal-server.sh).
export const optIn = ['scale'];

/** The groups of `npm run test:unit`. */
export const unitGroups = ['api', 'activities', 'workflows', 'unit-workflows', 'webhooks', 'storage', 'doc-history', 'docs', 'codec'];

// A file that calls one of these starts a Temporal dev server (or a whole stack) or PostgreSQL;
// test/docs/walkthroughs.test.ts starts `npm run webdata -- dev` as a process.
const STARTS_A_SERVER = /\b(startTestTemporal|startStack|startDevStack|startTemporalServer|createLocalTestEnvironment|testServer)\(|npm run webdata -- dev/;

function walk(dir) {
  let out = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out = out.concat(walk(full));
    else if (name.endsWith('.test.ts')) out.push(full);
  }
  return out;
}

export function startsAServer(file) {
  return STARTS_A_SERVER.test(readFileSync(file, 'utf8'));
}

export function selectTestFiles(groups, { unit = false } = {}) {
  const wanted = unit && groups.length === 0 ? unitGroups : groups;
  return roots
    .flatMap((r) => { try { return walk(r); } catch { return []; } })
    .filter((f) => {
      const parts = relative('.', f).split('/');
      if (wanted.length === 0) return !optIn.some((g) => parts.includes(g));
      return wanted.some((g) => parts.includes(g));
    })
    .filter((f) => !unit || !startsAServer(f))
    .sort()
    .reduce(togetherFiles, []);
}

/** A folder's file that imports all its test files, to run them in one process. */
const TOGETHER = 'together.ts';

/**
 * Replaces the test files of a folder that has a `together.ts` by that one file: one process
 * instead of one per file (each pays Node, the TypeScript loader and its imports, and what it
 * starts once per process). A file named on an `// alone: <file>` line there runs in its own
 * process; a file neither imported nor named alone would silently not run, which stops the run.
 * When a selection takes only some of a folder's files, they run one by one as before.
 */
function togetherFiles(out, file, _i, selected) {
  const dir = dirname(file);
  const entry = join(dir, TOGETHER);
  if (!existsSync(entry)) return [...out, file];
  const text = readFileSync(entry, 'utf8');
  const alone = (f) => text.includes(`// alone: ${basename(f)}\n`);
  if (alone(file)) return [...out, file];
  const name = basename(file).replace(/\.ts$/, '.js');
  if (!text.includes(`import './${name}';`)) {
    throw new Error(`${file}: not imported by ${entry}; add \`import './${name}';\` there so that it runs`);
  }
  const shared = walk(dir).filter((f) => dirname(f) === dir && !alone(f));
  if (!shared.every((f) => selected.includes(f))) return [...out, file];
  return out.includes(entry) ? out : [...out, entry];
}

/**
 * The environment test files run with (run-tests.mjs and time-tests.mjs): the threads that would
 * load the sources again under tsx are not started: with files side by side the cores are taken
 * already. WEBDATA_ALLOW_PRIVATE_ADDRESSES is not set: each test allows its own servers' host:port
 * (the stacks of test/helpers do), as a user would.
 * - WEBDATA_CONVERT_THREADS=0: services convert HTML in the event loop (a conversion thread costs
 *   about 3 s of CPU per file).
 * - TEMPORAL_DEBUG=1: workers run workflow code on the main thread (the SDK's debug mode), not in
 *   a workflow thread of their own, which costs about 1.2 s of CPU per worker. The workflows'
 *   code and their sandbox are the same; what the mode drops is the 5 s limit on one activation,
 *   which no test relies on. The package, chaos and scale suites run workers as published.
 * What the caller set wins.
 */
export function testEnv(env = process.env) {
  return { WEBDATA_CONVERT_THREADS: '0', TEMPORAL_DEBUG: '1', ...env };
}

// Seconds per file from a timed run (`node scripts/time-tests.mjs --json`); only the order
// depends on it, so a stale or missing entry costs time, never a result.
const DURATIONS = 'scripts/test-durations.json';

/** What a file not in the table counts as: a full-stack file of middling length. */
const UNKNOWN_SECONDS = 60;

/**
 * Longest first, so that with several files at a time the last ones to start are short and the
 * run does not end waiting on one long file.
 */
export function longestFirst(files) {
  let known = {};
  if (existsSync(DURATIONS)) {
    try { known = JSON.parse(readFileSync(DURATIONS, 'utf8')); } catch { known = {}; }
  }
  const weight = (f) => known[f] ?? UNKNOWN_SECONDS;
  return [...files].sort((a, b) => weight(b) - weight(a) || a.localeCompare(b));
}

/**
 * Whether test files run from their TypeScript sources through tsx (WEBDATA_TEST_TSX=1), not
 * from .test-build/ (test-build.mjs): for a tree whose packages are not built, or to compare.
 */
const fromSources = process.env.WEBDATA_TEST_TSX === '1';

/**
 * Makes the files ready to run: the packages built (`tsc -b`, a second or two when they are up
 * to date), so a test never runs an older lib/ than the sources, then .test-build/.
 */
export async function prepareTestFiles() {
  if (fromSources) return;
  const tsc = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-b', 'tsconfig.build.json'], { stdio: 'inherit' });
  if (tsc.status !== 0) throw new Error(`tsc -b tsconfig.build.json failed (exit ${tsc.status ?? tsc.signal}): the packages must build before their tests run`);
  await buildTestTree();
}

/** The command line (after `node`) that runs one test file as `npm test` does. */
export function testFileArgs(file) {
  if (fromSources) return ['--conditions=webdata-source', '--import', 'tsx', '--test', '--test-reporter=spec', file];
  return ['--test', '--test-reporter=spec', builtTestFile(file)];
}

/** A count from a test file's summary (its last `ℹ <name> N` line), 0 when it has none. */
export function summaryCount(output, name) {
  const lines = [...output.matchAll(new RegExp(`^ℹ ${name} (\\d+)$`, 'gm'))];
  return Number(lines.at(-1)?.[1] ?? 0);
}

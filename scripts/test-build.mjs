// The repository as the test files see it, runnable by plain Node: `.test-build/<pid>/`.
//
// Run with tsx, every test process (and there is one per test file) spends about 2 s of CPU in
// the TypeScript loader: its hooks thread, and a look-up or transform for each of the ~500
// modules a full-stack file loads. Plain Node over JavaScript spends none of it. So, before a run:
// - every tracked file is linked into the tree at its own path (fixtures, scripts, sources);
// - a TypeScript file of a source folder that `tsc -b` compiles (src/, packages/*/src/) gets
//   a `.js` twin linked to its compiled output (lib/), the module a package import loads too;
// - every other TypeScript file (tests, their helpers, bench/) is transformed by esbuild into a
//   `.js` twin, import paths kept as written.
// Node identifies a module by its real path, so a test's `../../src/x.js` and another module's
// `webdata-contract` load the one copy in lib/. Paths built from import.meta.url (a fixture, a
// script, `src/worker.ts` for a spawned worker) find the same files as in the clone.
// Needs the packages built (run-tests.mjs builds them first). A test file still runs from its
// sources with `node --conditions=webdata-source --import tsx --test <file>`.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { build } from 'esbuild';

/**
 * One tree per running runner (`.test-build/<pid>/`), removed when it exits: two runs in one
 * clone (`npm run test:unit` beside a group) never rebuild each other's files.
 */
const TEST_BUILDS = '.test-build';
export const TEST_BUILD = join(TEST_BUILDS, String(process.pid));

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

/** Removes the trees of runners that are gone (killed before they could remove theirs). */
function pruneTrees(root) {
  const dir = join(root, TEST_BUILDS);
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    if (!/^\d+$/.test(name) || !alive(Number(name))) rmSync(join(dir, name), { recursive: true, force: true });
  }
}

/** Folders compiled by `tsc -b`, and where each puts its output: from tsconfig.build.json's projects. */
function compiledFolders(root) {
  const read = (path) => JSON.parse(readFileSync(join(root, path), 'utf8'));
  return read('tsconfig.build.json').references.map(({ path }) => {
    const { rootDir, outDir } = read(join(path, 'tsconfig.json')).compilerOptions;
    return { src: `${join(path, rootDir)}/`, lib: `${join(path, outDir)}/` };
  });
}

/** Ignored folders that tests read or write relative to the repository root. */
const LINKED_DIRS = ['node_modules', '.data'];

function link(target, path) {
  mkdirSync(dirname(path), { recursive: true });
  symlinkSync(relative(dirname(path), target), path);
}

/** Builds this runner's tree from the tracked files of the clone at `root` (the current folder). */
export async function buildTestTree(root = '.') {
  pruneTrees(root);
  const out = join(root, TEST_BUILD);
  rmSync(out, { recursive: true, force: true });
  process.once('exit', () => rmSync(out, { recursive: true, force: true }));
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter((f) => f !== '' && existsSync(join(root, f)));
  const compiledDirs = compiledFolders(root);
  const transform = [];
  for (const file of files) {
    link(join(root, file), join(out, file));
    if (!file.endsWith('.ts') || file.endsWith('.d.ts')) continue;
    const compiled = compiledDirs.find((c) => file.startsWith(c.src));
    const js = file.replace(/\.ts$/, '.js');
    if (compiled) {
      const target = join(root, compiled.lib, js.slice(compiled.src.length));
      if (!existsSync(target)) throw new Error(`${target}: missing; build the packages first (npm run build)`);
      link(target, join(out, js));
    } else {
      transform.push(file);
    }
  }
  for (const dir of LINKED_DIRS) {
    mkdirSync(join(root, dir), { recursive: true });
    link(join(root, dir), join(out, dir));
  }
  // One esbuild call for all of them; `bundle: false` keeps every import as written.
  await build({
    absWorkingDir: resolve(root),
    entryPoints: transform,
    outdir: TEST_BUILD,
    outbase: '.',
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'error',
    // As tsc compiles the packages (tsconfig.base.json): imports kept as written, ES2022 class fields.
    tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true, target: 'ES2022', useDefineForClassFields: true } },
  });
  return { files: files.length, transformed: transform.length };
}

/** The file in this runner's tree that runs `file` (a test file's path in the clone). */
export function builtTestFile(file) {
  return join(TEST_BUILD, file.replace(/\.ts$/, '.js'));
}

// The workflows of a released commit as one bundle, for a worker that runs an older release beside
// the current code (the upgrade test): the commit's sources come out of git (`git archive`) into a
// temporary folder, are bundled there, and the bundle is kept on disk keyed by the commit.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';
import { writeBundle } from './workflow-bundle.js';

/** The last 0.x commit: the workflows with every `patched()` branch, before 1.0 removed them. */
export const RELEASE_0X = '2ff2e26fdee82156518c7249bafd3242cd62080f';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// The repository: ROOT itself under tsx, and where the compiled tests' node_modules link points
// (they run from .test-build/<id>/, which git does not track: git archive refuses to run there).
const REPO = dirname(realpathSync(join(ROOT, 'node_modules')));
const CACHE = join(REPO, 'node_modules/.cache/webdata-release-bundles');

/**
 * The path of the bundle a package worker of `commit` ran: its workflows with its metrics and
 * key-name interceptor modules (as its `createWebDataWorker` added them), built when missing.
 */
export async function releaseWorkflowBundle(commit: string): Promise<string> {
  if (!/^[0-9a-f]{40}$/.test(commit)) throw new Error(`a release is pinned by its full commit hash, got "${commit}"`);
  const cached = join(CACHE, `workflows-${commit}.js`);
  if (existsSync(cached)) return cached;
  const dir = mkdtempSync(join(tmpdir(), `webdata-release-${commit.slice(0, 12)}-`));
  try {
    const packages = readdirSync(join(REPO, 'packages')).map((p) => `packages/${p}/src`);
    // Only the folders that exist at that commit (a package added later is not in its tree).
    const paths = ['src', 'package.json', ...packages].filter((p) => execFileSync('git', ['ls-tree', '--name-only', commit, p], { cwd: REPO, encoding: 'utf8' }).trim() !== '');
    const tar = execFileSync('git', ['archive', commit, ...paths], { cwd: REPO, maxBuffer: 1 << 28 });
    execFileSync('tar', ['-x', '-C', dir], { input: tar });
    // Outside node_modules (the SDK's loader skips files under it), next to a link to this tree's.
    symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
    const interceptors = ['src/worker/workflow-metrics.ts', 'src/workflows/api-key-ref-interceptor.ts'].map((p) => join(dir, p)).filter((p) => existsSync(p));
    const { code } = await bundleWorkflowCode({
      workflowsPath: join(dir, 'src/workflows/index.ts'),
      workflowInterceptorModules: interceptors,
      webpackConfigHook: (config) => ({
        ...config,
        resolve: {
          ...config.resolve,
          conditionNames: ['webdata-source', '...'],
          // The commit's own contract, not the workspace link to this tree's.
          alias: { ...(config.resolve?.alias as object), 'webdata-contract$': join(dir, 'packages/contract/src/index.ts') },
        },
      }),
      logger: { trace() {}, debug() {}, info() {}, warn() {}, error: (message, meta) => console.error(message, meta ?? ''), log() {} },
    });
    return writeBundle(cached, code);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

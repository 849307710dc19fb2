// Flat config: type-aware rules for the whole tree, the workflow sandbox rule and the import order of src/.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importOrder from './scripts/eslint-import-order.mjs';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

// The import order of src/ (CONTRIBUTING.md, "Import order"), top layer first. A file imports
// from its own folder and from any layer below its own, never from its layer or above:
//   cli/                        the `webdata` command (bin/webdata.js), a user of the entry files
//   index.ts api.ts worker.ts plugin.ts storage.ts   the entry files (package.json exports)
//   client/ webhooks/ worker/ devserver/   start and read runs; receive webhooks; host the
//                               workflows and activities; start a Temporal dev server
//   config/                     the worker's settings, read from the environment
//   keys/                       API keys by reference: resolves the key a run names, in the worker
//   workflows/                  deterministic code, bundled: takes only types from activities/
//   activities/                 the I/O the workflows schedule
//   coordination/               calls, with a Temporal client, to the tenant ledger and team
//                               governor workflows: what both an activity and the client do
//   codec/                      payload encryption: keys, the codec, its server (no other src/)
//   shared/ search-attributes.ts   what the workflows share with the code around them: message
//                               definitions, workflow ids, pure rules, retry policies (no I/O)
// The workflows' limit is narrower than "any layer below": their bundle must not pull in
// activity code or a Temporal client, so they import values from shared/ and
// search-attributes.ts only, and `import type` from activities/ too.
export const importOrderOptions = {
  srcDir: `${import.meta.dirname}/src`,
  selfName: 'webdata-temporal',
  layers: [
    ['cli'],
    ['index.ts', 'api.ts', 'worker.ts', 'plugin.ts', 'storage.ts'],
    ['client', 'webhooks', 'worker', 'devserver'],
    ['config'],
    ['keys'],
    ['workflows'],
    ['activities'],
    ['coordination'],
    ['codec'],
    ['shared', 'search-attributes.ts'],
  ],
  limits: { workflows: { only: ['shared', 'search-attributes.ts'], typesFrom: ['activities'] } },
};

export default tseslint.config(
  { ignores: ['node_modules/**', '**/node_modules/**', 'dist/**', '**/dist/**', 'coverage/**', '.data/**', '.test-build/**', '**/lib/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        // node:test's test()/describe() return promises the runner itself awaits.
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite'] }] },
      ],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { local: importOrder },
    rules: { 'local/import-order': ['error', importOrderOptions] },
  },
  {
    // Workflow code runs in Temporal's deterministic sandbox: no Node built-ins, no I/O.
    files: ['src/workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: 'Workflows must not import Node built-ins; do I/O in an activity.' })),
          patterns: [{ group: ['undici', 'pg', 'webdata-client', 'webdata-storage', '**/storage/*'], message: 'Workflows import activity types only.' }],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', fetch: 'readonly' } },
  },
);

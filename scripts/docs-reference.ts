// What scripts/write-docs-reference.ts writes, as pure functions of the sources: docs/configuration.md
// from src/config/reference.ts, and the README's CLI command list from src/cli/help.ts. The
// tests in test/docs compare the files with these and fail when one is stale.
import { commandList } from '../src/cli/help.js';
import { ENVCONFIG_DOCS, ENVCONFIG_VARIABLES, INTERNAL, SETTINGS, type EnvVariable } from '../src/config/reference.js';

export const CONFIGURATION_PAGE = 'docs/configuration.md';

const cell = (text: string) => text.replace(/\|/g, '\\|');
const row = (v: EnvVariable) => `| \`${v.name}\` | ${cell(v.readers.join(', '))} | ${cell(v.default)} | ${cell(v.meaning)} |`;
const table = (vars: readonly EnvVariable[]) => ['| variable | read by | default | meaning |', '|---|---|---|---|', ...vars.map(row)].join('\n');

export function configurationPage(): string {
  return `# Configuration

<!-- Written by \`npm run docs:reference\` from src/config/reference.ts: edit there, not here. -->

Every environment variable the package reads, who reads it, what applies when it is unset and
what it does. \`webdata worker\` (and \`createWorkerFromEnv()\`) reports each missing or invalid
one on one line at start; a Worker you build yourself passes the same settings as options
(\`webDataPlugin({ client, store, ... })\`). Readers: the **worker**, the **client** (the typed
HTTP client and whoever starts runs), the **CLI** (\`webdata\` commands), the **dev stack**
(\`webdata dev\`, \`npm run demo\`, the tests) and the local **service** (\`webdata-service\`).

## Settings

${table(SETTINGS)}

## The Temporal connection

The worker and the CLI connect to Temporal with \`@temporalio/envconfig\`: environment variables
over a profile of \`temporal.toml\`. What each means is in Temporal's
[client environment configuration reference](${ENVCONFIG_DOCS}); the ones it reads:
${ENVCONFIG_VARIABLES.map((v) => `\`${v}\``).join(', ')}. Without any, the CLI connects to
\`localhost:7233\`, namespace \`default\`.

## Set by the local service for its own processes

Not settings: the local service passes these to the interact runners it starts.

${table(INTERNAL)}

Variables that only tests, scripts and benchmarks read (\`WEBDATA_TEST_*\`, \`CHAOS_*\`, \`SCALE_*\`
and the like) are not listed: see [CONTRIBUTING.md](../CONTRIBUTING.md).
`;
}

/** The comment that marks the README's generated command list (the fenced block under it). */
export const CLI_LIST_MARK = '<!-- The command list below is written by `npm run docs:reference` from src/cli/help.ts. -->';

/** The README with the fenced block under CLI_LIST_MARK replaced by the help's command list. */
export function readmeWithCliList(readme: string): string {
  const lines = readme.split('\n');
  const mark = lines.indexOf(CLI_LIST_MARK);
  if (mark === -1) throw new Error(`README.md: no line ${CLI_LIST_MARK}`);
  const open = mark + 1;
  if (!/^```/.test(lines[open] ?? '')) throw new Error('README.md: a fenced block must follow the command list mark');
  const close = lines.findIndex((l, i) => i > open && l.startsWith('```'));
  if (close === -1) throw new Error('README.md: the command list block is not closed');
  return [...lines.slice(0, open + 1), commandList(), ...lines.slice(close)].join('\n');
}

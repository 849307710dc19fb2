// `webdata-service`: runs the local service (and the demo site) until SIGINT/SIGTERM.
import { parseArgs } from 'node:util';
import { startLocalService, type StartLocalServiceOptions } from './app.js';
import { ConfigError, loadConfigFile, type LoadedConfig } from './config/load.js';
import { IMITATIONS, type ServiceImitation } from './core/service.js';
import { describeMarkdownEngine } from './scrape/markdown-engine.js';

const USAGE = `Usage: webdata-service [options]

  --port <n>        service port (default 3002; 0 = any free port)
  --host <addr>     bind address (default 127.0.0.1)
  --config <file>   JSON config: teams, API keys, credits, rate limits, faults
                    (or env WEBDATA_SERVICE_CONFIG)
  --site-port <n>   demo site port (default: the next free port after the service)
  --pages <n>       demo site size in pages
  --seed <n>        demo site generator seed
  --no-site         do not start the demo site
  --imitate <name>  answer as another server where it differs tolerably from the
                    reference: "firecrawl-oss" (the open-source server, commit
                    0fac8fb: unsigned webhooks without webhookId, status ignoring
                    skip/limit, no browser/interact/support/activity/historical/
                    batch-errors routes, ...); config file: service.imitate
  -h, --help        this text`;

function fail(lines: string[], code = 2): never {
  for (const line of lines) process.stderr.write(`${line}\n`);
  process.exit(code);
}

function intOption(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) fail([`webdata-service: --${name} must be a non-negative integer, got "${value}"`]);
  return n;
}

function parseCommandLine(): StartLocalServiceOptions {
  let args;
  try {
    args = parseArgs({
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        config: { type: 'string' },
        'site-port': { type: 'string' },
        pages: { type: 'string' },
        seed: { type: 'string' },
        'no-site': { type: 'boolean' },
        imitate: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }).values;
  } catch (err) {
    fail([`webdata-service: ${(err as Error).message}`, '', USAGE]);
  }
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }

  const configPath = args.config ?? process.env.WEBDATA_SERVICE_CONFIG;
  let file: LoadedConfig | undefined;
  if (configPath) {
    try {
      file = loadConfigFile(configPath);
    } catch (err) {
      if (err instanceof ConfigError) fail([`webdata-service: invalid config ${configPath}:`, ...err.problems.map((p) => `  ${p}`)]);
      throw err;
    }
  }

  const imitate = args.imitate;
  if (imitate !== undefined && !(IMITATIONS as readonly string[]).includes(imitate)) {
    fail([`webdata-service: --imitate must be one of ${IMITATIONS.join(', ')}, got "${imitate}"`]);
  }

  const sitePort = intOption('site-port', args['site-port']);
  const pages = intOption('pages', args.pages);
  const seed = intOption('seed', args.seed);
  const fileSite = file?.site;
  const site = args['no-site'] || fileSite === false
    ? false
    : { ...fileSite, ...(sitePort !== undefined && { port: sitePort }), ...(pages !== undefined && { pages }), ...(seed !== undefined && { seed }) };

  return {
    port: intOption('port', args.port) ?? file?.port ?? 3002,
    host: args.host ?? file?.host ?? '127.0.0.1',
    teams: file?.teams,
    config: imitate !== undefined ? { ...file?.config, imitate: imitate as ServiceImitation } : file?.config,
    site,
  };
}

async function main(): Promise<void> {
  const options = parseCommandLine();
  const service = await startLocalService(options);
  const imitating = service.context.config.imitate;
  const out = [`webdata-service: Web Data Extraction Service API v2 on ${service.url}${imitating ? ` (imitating ${imitating})` : ''}`];
  if (service.siteUrl) out.push(`  demo site:  ${service.siteUrl}`);
  out.push(`  ${describeMarkdownEngine()}`);
  for (const team of service.teams) {
    out.push(`  team ${team.id}: API key${team.apiKeys.length > 1 ? 's' : ''} ${team.apiKeys.join(', ')}; ${team.credits} credits/month${team.webhookSecret ? `; webhook secret ${team.webhookSecret}` : ''}`);
  }
  out.push('  Ctrl-C to stop');
  process.stdout.write(`${out.join('\n')}\n`);

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) {
      process.stderr.write(`webdata-service: ${signal} again, exiting now\n`);
      process.exit(1);
    }
    stopping = true;
    process.stderr.write(`webdata-service: ${signal}, closing\n`);
    service.close().then(() => process.exit(0), (err: unknown) => {
      process.stderr.write(`webdata-service: close failed: ${String(err)}\n`);
      process.exit(1);
    });
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((err: unknown) => {
  const message = err instanceof Error ? err.message : String(err);
  fail([`webdata-service: ${message}`], 1);
});

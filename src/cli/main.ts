// `webdata`: the command line over src/client (and the embedded stack for `dev`).
// Commands are loaded on use: --help and usage errors answer without loading the SDKs.
import { CliError, oneLine, reportError, UsageError } from './errors.js';
import { COMMAND_HELP, HELP } from './help.js';

export { HELP };

/** Where `main` writes its own lines (help, usage and failure messages); the console by default. */
export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

const consoleIo: CliIo = { out: (line) => console.log(line), err: (line) => console.error(line) };

function wantsHelp(args: string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

/** Runs `webdata <argv>` and returns its exit code (bin/webdata.js sets process.exitCode from it). */
export async function main(argv: string[], io: CliIo = consoleIo): Promise<number> {
  const debug = argv.includes('--debug') || process.env.WEBDATA_DEBUG === '1';
  const [command, ...rest] = argv.filter((a) => a !== '--debug');
  if (command !== undefined && Object.hasOwn(COMMAND_HELP, command) && wantsHelp(rest)) {
    io.out(COMMAND_HELP[command]);
    return 0;
  }
  try {
    switch (command) {
      // Loaded only for `dev`: the embedded stack pulls in @temporalio/testing and webdata-service.
      case 'dev': return await (await import('./commands/dev.js')).devCommand(rest);
      case 'run': return await (await import('./commands/run.js')).runCommand(rest);
      case 'status': return await (await import('./commands/status.js')).statusCommand(rest);
      case 'cancel': return await (await import('./commands/status.js')).cancelCommand(rest);
      case 'schedule': return await (await import('./commands/schedule.js')).scheduleCommand(rest);
      case 'export': return await (await import('./commands/export.js')).exportCommand(rest);
      case 'changes': return await (await import('./commands/changes.js')).changesCommand(rest);
      case 'monitor': return await (await import('./commands/monitor.js')).monitorCommand(rest);
      case 'webhooks': return await (await import('./commands/webhooks.js')).webhooksCommand(rest);
      case 'parse': return await (await import('./commands/parse.js')).parseCommand(rest);
      case 'tenants': return await (await import('./commands/tenants.js')).tenantsCommand(rest);
      case 'doctor': return await (await import('./commands/doctor.js')).doctorCommand(rest);
      case 'codec-server': return await (await import('./commands/codec-server.js')).codecServerCommand(rest);
      case 'worker':
        if (rest.length > 0) throw new UsageError(`worker takes no arguments, got "${rest.join(' ')}": it is configured from WEBDATA_* and TEMPORAL_* variables (see webdata worker --help)`);
        try {
          await (await import('../worker.js')).runWorkerFromEnv();
        } catch (err) {
          // The worker's own connection (Rust core): name the address it tried and the fix.
          if (/transport|connect|deadline|unavailable/i.test((err as Error)?.message ?? '')) {
            const { temporalTarget } = await import('./connect.js');
            const { address, namespace } = temporalTarget();
            const refused = /ConnectionRefused|ECONNREFUSED/i.test((err as Error).message) ? 'connection refused (nothing listens there)' : oneLine((err as Error).message);
            throw new CliError(`cannot reach Temporal at ${address} (namespace ${namespace}): ${refused}. Start a local one with \`webdata dev\`, or set TEMPORAL_ADDRESS (and TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS_*) to your server`, 1, { cause: err });
          }
          throw err;
        }
        return Number(process.exitCode ?? 0);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        if (command === 'help' && rest[0] && Object.hasOwn(COMMAND_HELP, rest[0])) io.out(COMMAND_HELP[rest[0]]);
        else io.out(HELP);
        return 0;
      default:
        io.err(`webdata: unknown command "${command}" (commands: ${Object.keys(COMMAND_HELP).join(', ')}; see webdata --help)`);
        return 2;
    }
  } catch (err) {
    return reportError(err, command ?? '', debug, io.err);
  }
}

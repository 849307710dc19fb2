// `webdata`: the command line over src/client (and the embedded stack for `dev`).
import { runWorkerFromEnv } from '../worker/index.js';
import { exportCommand } from './commands/export.js';
import { runCommand } from './commands/run.js';
import { scheduleCommand } from './commands/schedule.js';
import { cancelCommand, statusCommand } from './commands/status.js';

const HELP = `webdata: durable web data pipelines on Temporal

  webdata dev                         Temporal dev server + UI, local service + demo site, worker, webhook receiver
  webdata run <url> [options]         start a pipeline and show live progress (--json for machines, --no-wait)
      --mode crawl|batch  --include RE  --exclude RE  --search TEXT  --limit N  --crawl-limit N  --depth N
      --budget N  --monthly-cap N  --skip map,select,crawl,batch,interact,support
      --interact-match RE (--interact-code JS [--interact-language node|python|bash] | --interact-prompt TEXT)
      --webhook-url URL  --task-queue Q  --workflow-id ID  --input pipeline.json
  webdata status <workflow-id>        progress of a run (--json)
  webdata cancel <workflow-id>        cancel a run (jobs cancelled, sessions stopped)
  webdata schedule create|list|pause|unpause|delete
  webdata worker                      run a worker configured from WEBDATA_* and TEMPORAL_* variables
  webdata export <run-id> [--format jsonl|markdown] [--store DIR|postgres://...]

Temporal connection: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS_* (envconfig).`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    // Loaded only for `dev`: the embedded stack pulls in @temporalio/testing and webdata-service.
    case 'dev': return (await import('./commands/dev.js')).devCommand(rest);
    case 'run': return runCommand(rest);
    case 'status': return statusCommand(rest);
    case 'cancel': return cancelCommand(rest);
    case 'schedule': return scheduleCommand(rest);
    case 'export': return exportCommand(rest);
    case 'worker':
      await runWorkerFromEnv();
      return Number(process.exitCode ?? 0);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      console.log(HELP);
      return 0;
    default:
      console.error(`webdata: unknown command "${command}"\n\n${HELP}`);
      return 2;
  }
}

// The command line's help, one entry per command: its line in `webdata --help` (and in the README's
// CLI section, written from the same entries by scripts/write-docs-reference.ts) and its
// `webdata <command> --help`. A new command is one entry in COMMANDS. Printed before anything
// connects or starts.
import { scheduleRunFlags } from './run-flags.js';

/** Help lines for the shared flags. */
export const RUN_FLAGS_HELP = `Input (flags override single fields of --input and keep the rest):
  --input FILE               a PipelineInput JSON file (see README "PipelineInput")
  --mode crawl|batch         crawl: map → select → crawl, batch for what it missed (default);
                             batch: no crawl, batch-scrape every selected URL
  --include RE  --exclude RE select.include / select.exclude (repeatable; replace the file's list)
  --search TEXT              select.search: order selected URLs by relevance
  --limit N                  select.limit: at most N selected URLs
  --crawl-limit N            crawl.limit        --depth N   crawl.maxDiscoveryDepth
  --budget N                 budget.credits     --monthly-cap N   budget.monthlyCap
  --skip STAGES              switch stages off: map,select,crawl,batch,interact,agent,support
  --interact-match RE        interact.match, with --interact-code JS [--interact-language node|python|bash]
                             or --interact-prompt TEXT
  --agent-prompt TEXT        agent.prompt: one agent job after the pages are stored, with
                             --agent-model spark-1-pro|spark-1-mini|spark-2 and --agent-max-credits N
  --webhook-url URL          job events to this receiver (polling still guarantees completion)
  --tenant NAME              tenant: the customer the run is for (fairness key, search attribute,
                             metrics label); 1-64 of A-Z a-z 0-9 . _ -
  --priority 1-5             priorityKey: Temporal priority of the run's tasks (1 first; default 3)
  --api-key-ref NAME         apiKeyRef: the NAME of the API key the run is billed with, resolved by
                             the worker (WEBDATA_API_KEYS); never the key itself
  --task-queue Q             worker task queue (default webdata)
  --workflow-id ID           workflow id (default webdata-<host>-<timestamp>)
  --dry-run                  print the merged, validated PipelineInput as JSON and exit (no connection)`;

const CONNECTION = `Temporal connection: TEMPORAL_ADDRESS (default localhost:7233), TEMPORAL_NAMESPACE (default
default), TEMPORAL_API_KEY, TEMPORAL_TLS_* or a profile in temporal.toml (envconfig).
TEMPORAL_UI_URL: the Temporal Web UI, for links to runs (known without it under \`webdata dev\`).
Failures print one line; --debug (or WEBDATA_DEBUG=1) adds the stack trace.
Exit codes: 0 ok, 1 failed, 2 usage (bad flag or input).`;

/** The run flags `webdata schedule create` takes. */
export const SCHEDULE_RUN_FLAGS = Object.keys(scheduleRunFlags);

/** Words joined into lines of at most `width` characters. */
function wrap(text: string, width: number): string {
  const lines: string[] = [];
  for (const word of text.split(' ')) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last].length + 1 + word.length <= width) lines[last] += ` ${word}`;
    else lines.push(word);
  }
  return lines.join('\n');
}

/** `webdata <command> --help`, per command. */
const DETAILS = {
  dev: `usage: webdata dev [options]

Starts, on loopback, a Temporal dev server with its Web UI, the local service with a demo site,
a worker and a webhook receiver; prints the settings other shells need. Ctrl-C stops it.

  --temporal-port N   Temporal frontend (default 7233)     --ui-port N       Web UI (default 8233)
  --service-port N    local service (default 3002)         --site-port N     demo site (default 3003)
  --webhook-port N    webhook receiver (default 3004)      --pages N         demo site size
  --store DIR|URL     document store (default .data/store) --db FILE         keep Temporal's state in this SQLite file
  --codec-port N      codec server for the UI (default 8234), started when WEBDATA_PAYLOAD_KEYS or
                      WEBDATA_PAYLOAD_KEYS_FILE is set: the worker and the stack's client encrypt payloads`,

  run: `usage: webdata run <url> [options]

Starts a pipeline run and follows it: live progress per stage, then a summary and the
Temporal UI link. Ctrl-C stops following (the run goes on: \`webdata status <id>\` follows it
again, \`webdata cancel <id>\` cancels it).

  --json                     machine output: one JSON object at the end
  --no-wait                  print the workflow id and return
${RUN_FLAGS_HELP}

${CONNECTION}`,

  status: `usage: webdata status <workflow-id> [--json]
       webdata status --tenant NAME [--limit N] [--json]

Shows the progress of a run (running or ended): stage, counts, credits. With --tenant: lists
that tenant's runs (newest first, at most --limit, default 100) from the WebdataTenant search
attribute.

${CONNECTION}`,

  cancel: `usage: webdata cancel <workflow-id>

Cancels a running run through Temporal: its running jobs are cancelled and browser sessions
stopped; stages that were running show as cancelled. A run that already ended is left as it is:
the command says how it ended and exits 0 (nothing to cancel).

${CONNECTION}`,

  schedule: `usage: webdata schedule create <id> <url> (--cron "0 3 * * *" | --every 6h) [--overlap POLICY] [--paused] [run options]
       webdata schedule list | trigger <id> | pause <id> | unpause <id> | delete <id>

Recurring runs over Temporal Schedules. Each run reports what changed since the schedule's
previous completed run (new, changed, unchanged, removed pages; \`webdata changes <id>\`) and
stores only new and changed pages.
  --cron EXPR      five-field cron expression, e.g. "0 3 * * *" (03:00 UTC daily)
  --every DURATION interval: 30m, 6h, 1d, "90 seconds"
  --overlap POLICY when a run is still going: skip (default), buffer_one, buffer_all,
                   cancel_other, terminate_other, allow_all
  --paused         create it paused
  --changes-webhook URL   POST each run's change summary here, signed with the worker's
                   WEBDATA_CHANGES_WEBHOOK_SECRET (header x-webdata-signature: sha256=<hex>)
  --no-changes     plain runs: no comparison, every page stored
  trigger <id>     start one run now and print its workflow id
Run options (see \`webdata run --help\`):
${wrap(SCHEDULE_RUN_FLAGS.map((f) => `--${f}`).join(', '), 96)}.

${CONNECTION}`,

  worker: `usage: webdata worker

Runs a worker for the pipeline, configured from the environment: WEBDATA_API_URL,
WEBDATA_API_KEY, WEBDATA_STORE (folder or postgres:// URL), WEBDATA_TASK_QUEUE and the other
WEBDATA_* settings (docs/operations.md, "Run the worker in production"), plus the Temporal connection below.

${CONNECTION}`,

  doctor: `usage: webdata doctor

Checks the deployment the environment describes, as \`webdata worker\` and the other commands
read it: Temporal reachable and the namespace there; the namespace's search attributes (the
one command that registers the missing ones); whether the server can share task queues by
tenant (fairness); the WEBDATA_* settings; the service at WEBDATA_API_URL accepting
WEBDATA_API_KEY; the store (WEBDATA_STORE) writable; the address policy. One line per check,
ok, warn or fail, with what to do. Exit 1 when a check fails. Run it after an upgrade.

${CONNECTION}`,

  webhooks: `usage: webdata webhooks --port N [--host H]

Runs the webhook receiver: it answers POST /webhooks, checks each delivery's signature, drops
duplicates and signals the run named in its metadata (a job's end wakes the run at once; the
run's polling stays the record). Ctrl-C or SIGTERM stops it. Point --webhook-url of runs (or
your reverse proxy) at http://H:N/webhooks.

  --port N     port to listen on (0: any free port)
  --host H     address to listen on (default 127.0.0.1; behind a reverse proxy keep loopback)

WEBDATA_WEBHOOK_SECRET             the team's webhook secret: deliveries must be signed with it.
                                   Without it deliveries are accepted unauthenticated, as hints.
WEBDATA_WEBHOOK_SIGNATURE_HEADERS  comma list of headers a signature is read from (default
                                   x-firecrawl-signature,x-service-signature)

${CONNECTION}`,

  export: `usage: webdata export <run-id> [--format jsonl|markdown] [--store DIR|postgres://...] [--job JOB-ID]
                      [--follow [--workflow WORKFLOW-ID]]
       webdata export --tenant NAME [--format ...] [--store ...]

--tenant (instead of a run id): the documents of every completed run of that tenant (found by
the WebdataTenant search attribute), newest run first.

Writes a run's stored documents to stdout: JSON Lines ({url, markdown, jobId, kind, metadata})
or one markdown file. The store is --store, else WEBDATA_STORE, else .data/store (the one
\`webdata dev\` uses); it must be the store the worker wrote.

--follow keeps writing documents as the worker stores them while the run goes on, and ends
when its workflow (--workflow, default the run id) has closed and every document is written.
It reads Temporal as \`webdata status\` does.`,
  tenants: `usage: webdata tenants [--tenant T] [--json]
       webdata tenants --tenant T --set-budget N|none [--task-queue Q]
       webdata tenants --tenant T|--default [--max-runs N|none] [--credits-per-hour N|none] [--json]
       webdata tenants --tenant T --erase [--dry-run] [--reason TEXT] [--store-run-prefix P]
                       [--store DIR|postgres://...] [--json]
       webdata tenants --erasures [--tenant T] [--store DIR|postgres://...] [--json]

Each tenant's credits this month (UTC): used (settled by its runs' stages), held (reserved by
stages running now), its monthly budget and what is left. A run with input.tenant reserves a
job's worst case on its tenant's ledger before it starts and settles the cost after; with no
credits left it waits (budget.waitForRaiseMs, re-reading the ledger every 30 s), clamps or
skips, as its own budget does. --set-budget sets the tenant's monthly budget (none: no budget).

Limits per tenant, on the same ledger: --max-runs caps its runs in flight (a run waits in line
for a slot before it first spends), --credits-per-hour its credits within a sliding hour (a job
is fitted to what is left, or the run waits until the window frees). --default sets them for
every tenant without its own (alone, it shows them); none: no limit; default (with --tenant):
follow the default again. The listing's runs and this hour columns: in flight / limit, credits
settled within the hour and held / limit.

--erase removes the tenant's data as one: its schedules, its runs (running ones cancelled,
terminated after 60 s), their documents, failures and link lists in the store, its change
series, its credit ledger and every workflow execution (histories deleted); then it prints the
counts and writes an erasure record (when, --reason, counts; no data) to the store. --dry-run
prints the counts and changes nothing. Run it again after an interruption: it finishes the
work, and once all is gone it says there is nothing to erase. --erasures lists the records.
Runs are found through Temporal: --store-run-prefix P also erases every store run whose id
starts with P (runs past the namespace's retention, when their input.runId names the tenant).
The store is --store, else WEBDATA_STORE, else .data/store: the one the worker writes.

${CONNECTION}`,
  changes: `usage: webdata changes <series> [--run RUN-ID] [--diff] [--json] [--store DIR|postgres://...]

What the latest completed run of a series found changed since the run before it: counts of
new, changed, unchanged and removed pages, their URLs and, with --diff, a unified diff of each
changed page. A schedule's series is its id (input.changes.series names another). --run picks
another run of the series. The store is --store, else WEBDATA_STORE, else .data/store.`,
  monitor: `usage: webdata monitor create <name> <url>... [--crawl] [--every TEXT | --cron EXPR] [--timezone TZ]
                              [--webhook URL] [--series NAME] [--crawl-limit N] [--retention-days N] [--goal TEXT]
       webdata monitor list | run <monitor-id> [--wait] | checks <monitor-id> [--check CHECK-ID] | delete <monitor-id>

The service's own recurring checks (POST /v2/monitor): the service scrapes the URLs (or, with
--crawl, crawls each one) on its schedule and reports per page new, changed, same, removed or
error against its previous check. --every takes "every 15 minutes", "every 6 hours", "daily"...;
--cron a cron expression (--timezone, default UTC). With --webhook the service posts
monitor.check.completed there; a \`webdata webhooks\` receiver (or \`webdata dev\`'s) records
each check as a run of the series --series (default monitor-<id>) that \`webdata changes\` reads.
--goal (at most 2,000 characters) asks the service's model to judge each new or changed page
against it. run --wait waits for the check to finish; checks --check lists one check's pages
and their judgments. --json for machine output. Needs WEBDATA_API_URL and WEBDATA_API_KEY; no Temporal. A server without
monitor routes (the open-source server) answers one line pointing at \`webdata schedule\`.`,
  parse: `usage: webdata parse <file>... [--budget N] [--concurrency N] [--attempts N] [--formats LIST]
                     [--run-id ID] [--task-queue Q] [--workflow-id ID] [--json] [--no-wait]

Starts a parseDocuments run: each file (PDF, DOCX, HTML, text; at most 50 MB) is uploaded to
POST /v2/parse by the worker and stored as a document (kind parse) under the run; a file that
still fails after its retries is stored as a failure with its error, and the others go on.
Relative paths are made absolute here: the worker must see the same files.
  --budget N       credits the run may spend: no file is started whose cost would pass it
  --concurrency N  files parsed at the same time (default 2)
  --attempts N     attempts per file on transient failures (429, 5xx, network; default 4)
  --formats LIST   parse formats, e.g. markdown,html (default markdown)
  --run-id ID      store run id (default the workflow id)
  --task-queue Q   worker task queue (default webdata)
  --workflow-id ID workflow id (default webdata-parse-<timestamp>)
Exit code 1 when no file was parsed.

${CONNECTION}`,
  'codec-server': `usage: webdata codec-server [--port N] [--host H] [--origin URL]... [--auth-token-env NAME]
       webdata codec-server --new-key [--key-id ID]

Serves Temporal's remote codec protocol (POST /encode, POST /decode) with the payload keys of
WEBDATA_PAYLOAD_KEYS or WEBDATA_PAYLOAD_KEYS_FILE, so that the Temporal UI (--ui-codec-endpoint,
or the namespace's codec endpoint setting) and \`temporal workflow show --codec-endpoint URL\` show
encrypted payloads decoded. Ctrl-C or SIGTERM stops it. See docs/tenant-data.md.

  --port N               port to listen on (default 8888; 0: any free port)
  --host H               address to listen on (default 127.0.0.1)
  --origin URL           a Temporal UI origin whose pages may call it (repeatable; default
                         http://localhost:8233 and http://127.0.0.1:8233, the local UI)
  --auth-token-env NAME  requests must carry Authorization: Bearer <the value of NAME>
  --new-key              print one fresh key entry (id=base64 of 32 random bytes) and exit;
                         put it first in WEBDATA_PAYLOAD_KEYS to encrypt with it
  --key-id ID            the new key's id (default key-<date>-<4 hex>)`,
} satisfies Record<string, string>;

/** One command of `webdata`. */
export interface CommandEntry {
  /** What follows `webdata`. */
  name: keyof typeof DETAILS;
  /** Its form in the command list, e.g. `run <url> [options]`. */
  synopsis: string;
  /** What it does, in the command list (empty: the synopsis says it). */
  summary: string;
}

/** The commands, in the order `webdata --help` and the README list them. */
export const COMMANDS: readonly CommandEntry[] = [
  { name: 'dev', synopsis: 'dev', summary: 'Temporal dev server + UI, local service + demo site, worker, webhook receiver' },
  { name: 'run', synopsis: 'run <url> [options]', summary: 'start a pipeline and show live progress (--json, --no-wait, --dry-run)' },
  { name: 'status', synopsis: 'status <workflow-id>', summary: 'progress of a run (--json); --tenant NAME lists its runs' },
  { name: 'tenants', synopsis: 'tenants', summary: 'credits per tenant this month and their budgets' },
  { name: 'cancel', synopsis: 'cancel <workflow-id>', summary: 'cancel a run (jobs cancelled, sessions stopped)' },
  { name: 'schedule', synopsis: 'schedule create|list|trigger|pause|unpause|delete', summary: 'recurring runs that report what changed' },
  { name: 'worker', synopsis: 'worker', summary: 'run a worker configured from WEBDATA_* and TEMPORAL_* variables' },
  { name: 'doctor', synopsis: 'doctor', summary: 'check the deployment: Temporal, search attributes, service, store, addresses' },
  { name: 'webhooks', synopsis: 'webhooks --port N', summary: 'run the webhook receiver (signals runs when jobs end)' },
  { name: 'codec-server', synopsis: 'codec-server [--port N]', summary: 'decode encrypted payloads for the Temporal UI and CLI (--new-key)' },
  { name: 'export', synopsis: 'export <run-id> [--format jsonl|markdown] [--store DIR|postgres://...] [--follow]', summary: '' },
  { name: 'changes', synopsis: 'changes <series> [--diff]', summary: 'what the latest run of a series (a schedule) found changed' },
  { name: 'monitor', synopsis: 'monitor create|list|run|checks|delete', summary: "the service's own recurring checks (/v2/monitor)" },
  { name: 'parse', synopsis: 'parse <file>... [options]', summary: 'parse PDF, DOCX, HTML and text files into the store (parseDocuments)' },
];

/** The summary column starts here, as in a table; a longer synopsis keeps three spaces. */
const SUMMARY_COLUMN = 36;

/** The command list of `webdata --help` and of the README's CLI section, one line per command. */
export function commandList(indent = ''): string {
  return COMMANDS.map(({ synopsis, summary }) => {
    const left = `webdata ${synopsis}`;
    if (!summary) return `${indent}${left}`;
    return `${indent}${left.length < SUMMARY_COLUMN ? left.padEnd(SUMMARY_COLUMN) : `${left}   `}${summary}`;
  }).join('\n');
}

export const HELP = `webdata: durable web data pipelines on Temporal

${commandList('  ')}

\`webdata <command> --help\` shows a command's options.

${CONNECTION}`;

export const COMMAND_HELP: Record<string, string> = Object.fromEntries(COMMANDS.map((c) => [c.name, DETAILS[c.name]]));

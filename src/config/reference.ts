// Every environment variable this code reads, as data: docs/configuration.md is written from it
// (scripts/write-docs-reference.ts), and test/docs/configuration-reference.test.ts fails when
// the code names a WEBDATA_* or TEMPORAL_* variable that is not here. Variables read only by
// tests, scripts and benchmarks (WEBDATA_TEST_*, CHAOS_*, SCALE_*, ...) are left out by rule:
// the scan covers src/, packages/*/src and bin/ only.

/** Who reads a variable. */
export type Reader = 'worker' | 'client' | 'CLI' | 'dev stack' | 'service';

export interface EnvVariable {
  name: string;
  /** What applies when it is unset (`-`: nothing, the feature is off or the value is required). */
  default: string;
  meaning: string;
  readers: readonly Reader[];
}

/** Where @temporalio/envconfig's own variables are documented. */
export const ENVCONFIG_DOCS = 'https://docs.temporal.io/references/client-environment-configuration';

/**
 * The Temporal connection: read by @temporalio/envconfig (loadClientConnectConfig) for the
 * worker and the CLI, with a temporal.toml profile under them. Named here so that the scan
 * knows them; their meaning is envconfig's (ENVCONFIG_DOCS). A trailing `*` is a prefix.
 */
export const ENVCONFIG_VARIABLES: readonly string[] = [
  'TEMPORAL_ADDRESS',
  'TEMPORAL_NAMESPACE',
  'TEMPORAL_API_KEY',
  'TEMPORAL_PROFILE',
  'TEMPORAL_CONFIG_FILE',
  'TEMPORAL_TLS',
  'TEMPORAL_TLS_*',
  'TEMPORAL_GRPC_META_*',
  'TEMPORAL_CODEC_ENDPOINT',
  'TEMPORAL_CODEC_AUTH',
];

/** The settings a deployment chooses. */
export const SETTINGS: readonly EnvVariable[] = [
  { name: 'WEBDATA_API_URL', default: '- (required by the worker)', meaning: 'The Web Data Extraction Service, an http(s) URL, e.g. `http://127.0.0.1:3002` for the local service.', readers: ['worker', 'CLI'] },
  { name: 'WEBDATA_API_KEY', default: '- (required by the worker)', meaning: 'The service\'s API key. It stays in the worker: never in input, memo, search attributes, logs or errors.', readers: ['worker', 'CLI'] },
  { name: 'WEBDATA_API_KEYS', default: 'unset (a run that names a key fails)', meaning: 'Where the worker finds the keys runs name by reference (`apiKeyRef`): `env` (each in `WEBDATA_API_KEY_<NAME>`) or `file:/path` (a JSON object of names to keys; a key changed in it applies within 30 s). WEBDATA_API_KEY stays the key of runs that name none. `webdata run` reads it too and refuses an unknown name before starting. See docs/api-keys-by-reference.md.', readers: ['worker', 'CLI'] },
  { name: 'WEBDATA_API_KEY_*', default: '-', meaning: 'With WEBDATA_API_KEYS=env: the key of the name `*` (upper-cased, other characters than letters and digits as `_`: `customer-b` is WEBDATA_API_KEY_CUSTOMER_B).', readers: ['worker', 'CLI'] },
  { name: 'WEBDATA_API_TIMEOUT_MS', default: '60000', meaning: 'Deadline of one request to the service, in milliseconds (a whole number of at least 1).', readers: ['worker'] },
  { name: 'WEBDATA_TASK_QUEUE', default: '`webdata`', meaning: 'The task queue the worker polls.', readers: ['worker'] },
  { name: 'WEBDATA_STORE', default: '`.data/store`', meaning: 'The document store: a folder (JSON Lines) or a `postgres://` URL (`?schema=name`; install `pg`). `webdata export` and `webdata changes` read it too (`--store` overrides).', readers: ['worker', 'CLI'] },
  { name: 'WEBDATA_ALLOW_PRIVATE_ADDRESSES', default: 'off', meaning: 'The non-public hosts (loopback, private, link-local...) URLs may name, as a comma-separated list of host or host:port, e.g. 127.0.0.1:3003,crawler.internal:8080 (what `webdata dev` prints). Checked by the client, the workflow\'s input check and the worker after DNS. Unset, empty or 0: every such host is refused, since a tenant\'s URL must not reach inward. 1 allows them all (kept for compatibility; `webdata doctor` warns). See docs/untrusted-input.md.', readers: ['worker', 'client', 'CLI'] },
  { name: 'WEBDATA_STALL_AFTER_MS', default: '5 minutes (longer for a crawl with `delay`)', meaning: 'How long a job a run waits on may show no progress before it is declared stalled, cancelled, collected and the rest recovered by one new job; at least 10000. Recorded in the input of each run started (a run\'s own `stallAfterMs` wins). See docs/reliability.md.', readers: ['client', 'CLI'] },
  { name: 'WEBDATA_MAX_CONCURRENT_ACTIVITIES', default: 'the SDK\'s', meaning: 'Activities one worker runs at once.', readers: ['worker'] },
  { name: 'WEBDATA_MAX_CONCURRENT_WORKFLOW_TASKS', default: 'the SDK\'s', meaning: 'Workflow tasks one worker runs at once.', readers: ['worker'] },
  { name: 'WEBDATA_MAX_ACTIVITIES_PER_SECOND', default: 'no limit', meaning: 'Activities per second across the whole task queue, so that many workers together keep to the service\'s rate limit. Job starts are local activities and are not counted: a 429 on a start is retried after the service\'s `Retry-After`.', readers: ['worker'] },
  { name: 'WEBDATA_WORKFLOW_THREADS', default: '1 (the SDK\'s)', meaning: 'Threads that run workflow code.', readers: ['worker'] },
  { name: 'WEBDATA_WORKFLOW_TASK_POLLERS', default: '`autoscaling` (also `webdata dev`)', meaning: 'How the worker polls for workflow tasks: `autoscaling` (up to 100 polls, as the server\'s backlog asks) or a whole number of at least 1, a fixed maximum (the SDK\'s default is 10, of which a fifth ask for new runs).', readers: ['worker'] },
  { name: 'WEBDATA_MAX_CACHED_WORKFLOWS', default: 'the SDK\'s, from the heap', meaning: 'Runs kept in the worker\'s sticky cache; bounds its memory when many runs are open at once.', readers: ['worker'] },
  { name: 'WEBDATA_FOLLOW_MAX_IDLE_MS', default: '1000', meaning: 'Longest pause between two status reads of a job\'s follower while the reads bring little.', readers: ['worker'] },
  { name: 'WEBDATA_COLLECT_PAGE_SIZE', default: '100', meaning: 'Items per status page when collecting a job\'s results.', readers: ['worker'] },
  { name: 'WEBDATA_WORKFLOW_BUNDLE', default: 'bundled at start', meaning: 'A prebuilt workflow bundle (`npm run bundle`); `npm run demo` takes it too.', readers: ['worker', 'dev stack'] },
  { name: 'WEBDATA_ROBOTS_USER_AGENT', default: '`WebDataBot`', meaning: 'The robots.txt product token whose rules the pipeline applies: the crawler of the service you call (e.g. `FirecrawlAgent`); `*` rules apply when a site has no group for it.', readers: ['worker'] },
  { name: 'WEBDATA_CHANGES_WEBHOOK_SECRET', default: '- (summary not sent)', meaning: 'Signs the change summary webhook of series runs (`changes.webhookUrl`); at least 16 characters.', readers: ['worker'] },
  { name: 'WEBDATA_PAYLOAD_KEYS', default: 'off (payloads in clear)', meaning: 'Payload encryption keys, comma-separated `id=base64key` entries (32 random bytes each; `webdata codec-server --new-key` makes one). The first encrypts new payloads, the others still decrypt (rotation). Read alike by the worker, the CLI, `webdata dev` and `webdata codec-server`. See docs/tenant-data.md.', readers: ['worker', 'CLI', 'dev stack'] },
  { name: 'WEBDATA_PAYLOAD_KEYS_FILE', default: '-', meaning: 'A file with the payload keys instead, one `id=base64key` entry a line (`#` comments); set this or WEBDATA_PAYLOAD_KEYS, not both.', readers: ['worker', 'CLI', 'dev stack'] },
  { name: 'WEBDATA_DEPLOYMENT_NAME', default: '-', meaning: 'Worker versioning: the worker deployment the worker joins; set together with WEBDATA_BUILD_ID. See docs/operations.md.', readers: ['worker'] },
  { name: 'WEBDATA_BUILD_ID', default: '-', meaning: 'Worker versioning: the build id of this worker (no spaces); set together with WEBDATA_DEPLOYMENT_NAME.', readers: ['worker'] },
  { name: 'WEBDATA_METRICS_BIND', default: '- (no endpoint)', meaning: 'A Prometheus scrape endpoint, `host:port`, for the runtime\'s and the package\'s metrics.', readers: ['worker'] },
  { name: 'WEBDATA_METRICS_TENANTS', default: '50', meaning: 'Distinct tenants per worker process that keep their name in the `tenant` metrics label; later ones share `other`.', readers: ['worker'] },
  { name: 'WEBDATA_LOG_FORMAT', default: '`text`', meaning: '`json`: one JSON object per log line; `text`: the SDK\'s one-line format.', readers: ['worker'] },
  { name: 'WEBDATA_WEBHOOK_SECRET', default: '- (deliveries accepted as hints)', meaning: 'The team\'s webhook secret: `webdata webhooks` accepts only deliveries signed with it.', readers: ['CLI'] },
  { name: 'WEBDATA_WEBHOOK_SIGNATURE_HEADERS', default: '`x-firecrawl-signature,x-service-signature`', meaning: 'Comma list of headers a delivery\'s signature is read from.', readers: ['CLI'] },
  { name: 'WEBDATA_DEBUG', default: 'off', meaning: '`1`: a failing command prints its stack trace too (as `--debug`).', readers: ['CLI'] },
  { name: 'TEMPORAL_UI_URL', default: 'the one `webdata dev` runs', meaning: 'The Temporal Web UI, for links to runs.', readers: ['CLI'] },
  { name: 'TEMPORAL_LOG_LEVEL', default: '`INFO` (worker), `WARN` (dev stack), `ERROR` (demo)', meaning: 'Log level of the Temporal runtime: `TRACE`, `DEBUG`, `INFO`, `WARN` or `ERROR`.', readers: ['worker', 'dev stack'] },
  { name: 'TEMPORAL_CLI_PATH', default: 'found (README, "Tests")', meaning: 'The `temporal` binary that `webdata dev`, the demo and the tests run as their dev server.', readers: ['dev stack'] },
  { name: 'WEBDATA_SERVICE_CONFIG', default: 'one team `local`', meaning: 'The local service\'s configuration file (teams, keys, credits, features); `--config` overrides. See docs/local-service.md.', readers: ['service'] },
  { name: 'WEBDATA_CONVERT_THREADS', default: 'one per core (none on one core)', meaning: 'Threads the local service converts HTML to markdown in (0: in the event loop).', readers: ['service'] },
  { name: 'WEBDATA_MARKDOWN_ENGINE', default: 'the fastest that loads', meaning: 'Pins the local service\'s markdown engine: `native`, `wasm` or `js` (for comparisons).', readers: ['service'] },
];

/** Set by the local service for the interact runners it starts, not by a deployment. */
export const INTERNAL: readonly EnvVariable[] = [
  { name: 'WEBDATA_CDP_ENDPOINT', default: '-', meaning: 'The browser session an interact runner (node or python) attaches to.', readers: ['service'] },
  { name: 'WEBDATA_TARGET_ID', default: '-', meaning: 'The page of that session a python runner works on.', readers: ['service'] },
  { name: 'WEBDATA_RESULT_FILE', default: '-', meaning: 'Where a python runner writes its result.', readers: ['service'] },
];

/** Every name the reference knows: settings, internal ones, and envconfig's (`*` a prefix). */
export function knownVariable(name: string): boolean {
  if ([...SETTINGS, ...INTERNAL].some((v) => v.name === name || (v.name.endsWith('*') && name.startsWith(v.name.slice(0, -1))))) return true;
  return ENVCONFIG_VARIABLES.some((v) => (v.endsWith('*') ? name.startsWith(v.slice(0, -1)) : v === name));
}

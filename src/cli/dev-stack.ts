// The embedded stack on loopback: a Temporal dev server (with its Web UI), the local service
// with its demo site, a worker and the webhook receiver. Used by `webdata dev`, the demo and
// the end-to-end tests. The local service is loaded only here (src/ never imports it statically).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, type Worker } from '@temporalio/worker';
import { WebDataClient } from 'webdata-client';
import { ALLOW_PRIVATE_ADDRESSES_ENV, parseAddressAllowance, type AddressAllowance, type PrivateAddressOption } from 'webdata-contract';
import { fairnessDevServerArgs, resolveTemporalCli } from '../devserver/index.js';
import { createLocalTestEnvironment } from '../devserver/local-env.js';
import { SEARCH_ATTRIBUTES } from '../search-attributes.js';
import { createStore } from 'webdata-storage';
import type { DocumentStore } from 'webdata-storage';
import { startWebhookServer, type MonitorCheckDelivery, type WebhookServer } from '../webhooks/index.js';
import { recordMonitorCheck } from '../activities/monitor-series.js';
import { createWebDataWorker } from '../worker.js';
import { startCodecServer, webDataDataConverter, type CodecServer, type PayloadKeyring } from '../codec/index.js';

export interface DevStackOptions {
  /** Temporal Web UI on this port (0 = none). Default: a free port. */
  uiPort?: number;
  ui?: boolean;
  temporalPort?: number;
  servicePort?: number;
  sitePort?: number;
  webhookPort?: number;
  sitePages?: number;
  /** Demo site revision (default 0); see the service's demo-site/manifest.ts. */
  siteRevision?: number;
  /** Store spec (folder or postgres URL); default a temporary folder removed on close. */
  store?: string;
  /** Persist the Temporal dev server in this SQLite file. */
  dbFilename?: string;
  taskQueue?: string;
  /** Teams for the local service; default the `local` team with a webhook secret. */
  teams?: unknown[];
  /** Extra local-service options (config, faults...). */
  serviceOptions?: Record<string, unknown>;
  /** Start no worker (tests that run their own). */
  worker?: boolean;
  /** A prebuilt workflow bundle for the worker (see worker/bundle.ts); default: bundled at start. */
  workflowBundlePath?: string;
  /** Signs series runs' change summary webhooks (the worker's WEBDATA_CHANGES_WEBHOOK_SECRET). */
  changesWebhookSecret?: string;
  /**
   * More private `host:port` entries the stack's client and worker allow besides its own demo
   * site and receiver (a test's own site or receiver), added as WEBDATA_ALLOW_PRIVATE_ADDRESSES is.
   */
  allowPrivateHosts?: string[];
  /** Extra args for `temporal server start-dev` (e.g. dynamic config). */
  temporalArgs?: string[];
  /**
   * Payload encryption (WEBDATA_PAYLOAD_KEYS): the worker and the stack's client encrypt with these
   * keys, and a codec server on loopback (port `codecPort`, default a free one) decodes for the UI.
   */
  payloadKeys?: PayloadKeyring;
  codecPort?: number;
  log?: (line: string) => void;
}

export interface DevStack {
  temporal: { address: string; namespace: string; uiUrl?: string; client: Client; env: TestWorkflowEnvironment };
  service: { url: string; siteUrl?: string; apiKey: string; webhookSecret: string; handle: LocalServiceHandle };
  webhook: WebhookServer;
  api: WebDataClient;
  store: DocumentStore;
  storeSpec: string;
  taskQueue: string;
  worker?: Worker;
  /** The codec server the UI calls (with payloadKeys only). */
  codec?: CodecServer;
  /**
   * The stack's own private addresses that runs must reach (demo site, webhook receiver), as
   * `host:port` entries of WEBDATA_ALLOW_PRIVATE_ADDRESSES; allowed in this process while it runs.
   */
  privateHosts: string[];
  close(): Promise<void>;
}

/** The parts of the local service the stack uses (typed loosely: src/ does not depend on service/). */
export interface LocalServiceHandle {
  url: string;
  siteUrl?: string;
  teams: Array<{ id: string; apiKeys: string[]; webhookSecret?: string }>;
  faults: { set(teamId: string, faults: unknown): void };
  /** The demo site: switch its revision between runs (change reports). */
  site?: { revision: number; setRevision(revision: number): void };
  close(): Promise<void>;
}

interface ServiceModule {
  startLocalService(options: Record<string, unknown>): Promise<LocalServiceHandle>;
  defaultLocalTeam(): { id: string; apiKeys: string[]; webhookSecret?: string };
}

let runtimeReady = false;
function quietRuntime(): void {
  if (runtimeReady) return;
  runtimeReady = true;
  try {
    Runtime.install({ logger: new DefaultLogger((process.env.TEMPORAL_LOG_LEVEL ?? 'WARN') as 'WARN') });
  } catch {
    // Already installed by the host program.
  }
}

export async function startDevStack(options: DevStackOptions = {}): Promise<DevStack> {
  const log = options.log ?? (() => {});
  quietRuntime();
  const closers: Array<() => Promise<void>> = [];
  const close = async () => {
    for (const fn of closers.reverse()) {
      try {
        await fn();
      } catch (err) {
        log(`dev stack: close step failed: ${String(err)}`);
      }
    }
  };
  try {
    const cli = await resolveTemporalCli({ log });
    const ui = options.ui ?? true;
    // Started before the dev server: its UI is given the codec endpoint at start.
    const codec = options.payloadKeys ? await startCodecServer({ keyring: options.payloadKeys, port: options.codecPort ?? 0, log }) : undefined;
    if (codec) closers.push(() => codec.close());
    const dataConverter = options.payloadKeys ? webDataDataConverter(options.payloadKeys) : undefined;
    const env = await createLocalTestEnvironment({
      httpPort: 'free',
      server: {
        executable: cli.executable,
        ip: '127.0.0.1',
        port: options.temporalPort,
        ui,
        uiPort: ui ? options.uiPort : undefined,
        dbFilename: options.dbFilename,
        searchAttributes: SEARCH_ATTRIBUTES,
        // Fairness on: runs of different tenants share the task queues (README "Many tenants").
        extraArgs: [...fairnessDevServerArgs(), ...(options.temporalArgs ?? []), ...(codec && ui ? ['--ui-codec-endpoint', codec.url] : [])],
        log: { format: 'pretty', level: 'error' },
      },
      ...(dataConverter ? { client: { dataConverter } } : {}),
    });
    closers.push(() => env.teardown());
    const address = env.address;
    const uiUrl = ui ? await findUiUrl(env, options.uiPort) : undefined;
    // The UI's pages call the codec server from the browser, from either name of loopback.
    if (codec && uiUrl) codec.setOrigins([uiUrl, uiUrl.replace('//127.0.0.1:', '//localhost:')]);

    const serviceModule = (await import('webdata-service' as string)) as ServiceModule;
    const team = options.teams ? undefined : serviceModule.defaultLocalTeam();
    const teams = (options.teams ?? [team]) as Array<{ id: string; apiKeys: string[]; webhookSecret?: string }>;
    const service = await serviceModule.startLocalService({
      port: options.servicePort ?? 0,
      teams,
      site: { port: options.sitePort ?? 0, pages: options.sitePages, revision: options.siteRevision },
      ...options.serviceOptions,
    });
    closers.push(() => service.close());
    const mainTeam = teams[0];
    const apiKey = mainTeam.apiKeys[0];
    const webhookSecret = mainTeam.webhookSecret ?? '';


    let storeSpec = options.store;
    if (!storeSpec) {
      const dir = mkdtempSync(join(tmpdir(), 'webdata-store-'));
      storeSpec = dir;
      closers.push(async () => rmSync(dir, { recursive: true, force: true }));
    }
    const store = await createStore(storeSpec);
    closers.push(() => store.close());
    const client = env.client;
    // Monitor checks the service reports are recorded as change-report runs in the same store.
    const onMonitorCheck = (check: MonitorCheckDelivery) => recordMonitorCheck({ client: api, store }, check);
    const webhook = await startWebhookServer({ client, port: options.webhookPort, secret: webhookSecret || undefined, log, onMonitorCheck });
    closers.push(() => webhook.close());

    // The demo site and the receiver are on 127.0.0.1: runs reach exactly them, by host:port, on
    // top of what the environment allows (the same list `webdata dev` prints for other shells).
    const privateHosts = stackPrivateHosts(service.siteUrl, webhook.url);
    const allowPrivateAddresses = withHosts(parseAddressAllowance(process.env[ALLOW_PRIVATE_ADDRESSES_ENV]), [...privateHosts, ...(options.allowPrivateHosts ?? [])]);
    closers.push(allowInThisProcess(allowPrivateAddresses));
    const api = new WebDataClient({ apiKey, baseUrl: service.url, allowPrivateAddresses });
    closers.push(() => api.close());

    const taskQueue = options.taskQueue ?? 'webdata';
    let worker: Worker | undefined;
    if (options.worker !== false) {
      worker = await createWebDataWorker({ connection: env.nativeConnection, namespace: env.namespace, taskQueue, client: api, store, changesWebhookSecret: options.changesWebhookSecret, allowPrivateAddresses, workflowBundlePath: options.workflowBundlePath, payloadKeys: options.payloadKeys });
      const running = worker.run();
      closers.push(async () => {
        if (worker && worker.getState() === 'RUNNING') worker.shutdown();
        await running;
      });
    }

    return {
      temporal: { address, namespace: env.namespace ?? 'default', uiUrl, client, env },
      service: { url: service.url, siteUrl: service.siteUrl, apiKey, webhookSecret, handle: service },
      webhook,
      api,
      store,
      storeSpec,
      taskQueue,
      worker,
      codec,
      privateHosts,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/** `host:port` of the demo site and the receiver. */
function stackPrivateHosts(...urls: Array<string | undefined>): string[] {
  return urls.filter((u): u is string => u !== undefined).map((u) => new URL(u).host);
}

/** The environment's allowance with `hosts` added (the blanket one stays blanket). */
function withHosts(env: AddressAllowance, hosts: string[]): PrivateAddressOption {
  if (env.all) return true;
  return [...new Set([...env.hosts, ...hosts])];
}

/**
 * Sets WEBDATA_ALLOW_PRIVATE_ADDRESSES in this process, so that runs it starts (the demo, tests)
 * reach the stack; returns the step that puts the previous value back (if nothing changed it since).
 */
function allowInThisProcess(allowance: PrivateAddressOption): () => Promise<void> {
  const before = process.env[ALLOW_PRIVATE_ADDRESSES_ENV];
  const value = allowance === true ? before ?? '' : Array.isArray(allowance) ? allowance.join(',') : '';
  process.env[ALLOW_PRIVATE_ADDRESSES_ENV] = value;
  return async () => {
    if (process.env[ALLOW_PRIVATE_ADDRESSES_ENV] !== value) return;
    if (before === undefined) delete process.env[ALLOW_PRIVATE_ADDRESSES_ENV];
    else process.env[ALLOW_PRIVATE_ADDRESSES_ENV] = before;
  };
}

/** The dev server puts its UI on the chosen port, or port + 1000 by default. */
async function findUiUrl(env: TestWorkflowEnvironment, uiPort?: number): Promise<string> {
  const port = uiPort ?? Number(env.address.split(':').pop()) + 1000;
  return `http://127.0.0.1:${port}`;
}

export { Client };

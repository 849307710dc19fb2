// /v2/monitor: create, list, read, update, delete, run now, list checks, read a check's pages.
import {
  DEFAULT_MONITOR_LIST_LIMIT,
  DEFAULT_MONITOR_RETENTION_DAYS,
  DEFAULT_MONITOR_TIMEZONE,
  createMonitorRequestSchema,
  listMonitorChecksQuerySchema,
  listMonitorsQuerySchema,
  monitorCheckQuerySchema,
  updateMonitorRequestSchema,
  type CreateMonitorRequestParsed,
  type MonitorCheckDetailResponse,
  type MonitorCheckListResponse,
  type MonitorDeleteResponse,
  type MonitorListResponse,
  type MonitorResponse,
  type MonitorRunResponse,
} from 'webdata-contract';
import { HttpError } from '../core/http-error.js';
import type { RouteRequest, RouteResponse, Router } from '../core/routes.js';
import type { ServiceContext } from '../core/service.js';
import type { WebhookSpec } from '../core/webhooks.js';
import { badRequest } from '../http/errors.js';
import { newJobId } from '../http/ids.js';
import { assertJobId, parseBody, parseQuery } from '../http/validate.js';
import { MonitorRunner } from './runner.js';
import { cronOfText, parseCron } from './schedule.js';
import { MonitorScheduler } from './scheduler.js';
import { serializeCheck, serializeCheckPage, serializeMonitor } from './serialize.js';
import { MonitorStore } from './store.js';
import type { MonitorRecord, MonitorTargetRecord } from './types.js';

interface MonitorModule {
  ctx: ServiceContext;
  store: MonitorStore;
  runner: MonitorRunner;
  scheduler: MonitorScheduler;
}

export function registerMonitorRoutes(router: Router, ctx: ServiceContext): void {
  const store = new MonitorStore(() => ctx.now());
  const runner = new MonitorRunner(ctx, store);
  const scheduler = new MonitorScheduler(runner, () => ctx.now(), (m, err) => console.error(m, err));
  const mod: MonitorModule = { ctx, store, runner, scheduler };
  ctx.onClose(async () => {
    scheduler.close();
    await runner.close();
  });
  const opts = { group: 'monitor' as const };
  router.add('POST', '/v2/monitor', (req) => create(mod, req), opts);
  router.add('GET', '/v2/monitor', (req) => list(mod, req), opts);
  router.add('GET', '/v2/monitor/:monitorId', (req) => get(mod, req), opts);
  router.add('PATCH', '/v2/monitor/:monitorId', (req) => update(mod, req), opts);
  router.add('DELETE', '/v2/monitor/:monitorId', (req) => remove(mod, req), opts);
  router.add('POST', '/v2/monitor/:monitorId/run', (req) => run(mod, req), opts);
  router.add('GET', '/v2/monitor/:monitorId/checks', (req) => listChecks(mod, req), opts);
  router.add('GET', '/v2/monitor/:monitorId/checks/:checkId', (req) => getCheck(mod, req), opts);
}

function monitorNotFound(): HttpError {
  return new HttpError(404, 'Monitor not found', { code: 'NOT_FOUND' });
}

function find(mod: MonitorModule, req: RouteRequest): MonitorRecord {
  const id = assertJobId(req.params.monitorId, 'monitor id');
  const monitor = mod.store.get(req.team.id, id);
  if (!monitor) throw monitorNotFound();
  return monitor;
}

/** The cron a schedule stands for, checked (400 naming schedule.cron, .text or .timezone). */
function scheduleOf(schedule: CreateMonitorRequestParsed['schedule']): { cron: string; timezone: string } {
  const cron = schedule.cron ?? cronOfText(schedule.text ?? '');
  const timezone = schedule.timezone ?? DEFAULT_MONITOR_TIMEZONE;
  parseCron(cron, timezone).stop();
  return { cron, timezone };
}

function webhookOf(webhook: CreateMonitorRequestParsed['webhook']): WebhookSpec | undefined {
  if (webhook === undefined) return undefined;
  const spec = typeof webhook === 'string' ? { url: webhook } : webhook;
  // The signature is the service's to set (contract notes: refused on the hosted service too).
  if (Object.keys(spec.headers ?? {}).some((h) => h.toLowerCase() === 'x-firecrawl-signature' || h.toLowerCase() === 'x-service-signature')) {
    throw badRequest('Bad Request: webhook.headers: must not set the signature header', [{ path: ['webhook', 'headers'], message: 'must not set the signature header' }]);
  }
  return spec as WebhookSpec;
}

/** Targets keep their id when given one they already had; new ones get a fresh id. */
function targetsOf(targets: CreateMonitorRequestParsed['targets'], now: number): MonitorTargetRecord[] {
  return targets.map((t) => ({ ...t, id: t.id ?? newJobId(now) }));
}

function judgeEnabledOf(goal: string | null | undefined, given: boolean | undefined): boolean {
  return given ?? (typeof goal === 'string' && goal.trim() !== '');
}

function create(mod: MonitorModule, req: RouteRequest): RouteResponse<MonitorResponse> {
  const { origin: _o, integration: _i, ...input } = parseBody(createMonitorRequestSchema, req.body);
  const now = mod.ctx.now();
  const { cron, timezone } = scheduleOf(input.schedule);
  const monitor: MonitorRecord = {
    id: newJobId(now),
    team: req.team,
    apiKey: req.apiKey,
    name: input.name,
    status: 'active',
    cron,
    timezone,
    targets: targetsOf(input.targets, now),
    webhook: webhookOf(input.webhook),
    notification: input.notification ?? {},
    retentionDays: input.retentionDays ?? DEFAULT_MONITOR_RETENTION_DAYS,
    goal: input.goal ?? null,
    judgeEnabled: judgeEnabledOf(input.goal, input.judgeEnabled),
    nextRunAt: null,
    lastRunAt: null,
    currentCheckId: null,
    lastCheckSummary: null,
    createdAt: now,
    updatedAt: now,
    baseline: new Map(),
  };
  mod.store.put(monitor);
  mod.scheduler.arm(monitor);
  return { body: { success: true, data: serializeMonitor(monitor, now) } };
}

function list(mod: MonitorModule, req: RouteRequest): RouteResponse<MonitorListResponse> {
  const q = parseQuery(listMonitorsQuerySchema, req.query);
  const offset = q.offset ?? 0;
  const page = mod.store.byTeam(req.team.id).slice(offset, offset + (q.limit ?? DEFAULT_MONITOR_LIST_LIMIT));
  return { body: { success: true, data: page.map((m) => serializeMonitor(m, mod.ctx.now())) } };
}

function get(mod: MonitorModule, req: RouteRequest): RouteResponse<MonitorResponse> {
  return { body: { success: true, data: serializeMonitor(find(mod, req), mod.ctx.now()) } };
}

function update(mod: MonitorModule, req: RouteRequest): RouteResponse<MonitorResponse> {
  const monitor = find(mod, req);
  const { origin: _o, integration: _i, ...input } = parseBody(updateMonitorRequestSchema, req.body);
  const now = mod.ctx.now();
  if (input.schedule !== undefined) Object.assign(monitor, scheduleOf(input.schedule));
  if (input.name !== undefined) monitor.name = input.name;
  if (input.targets !== undefined) {
    monitor.targets = targetsOf(input.targets, now);
    // Baselines of targets that are gone go with them.
    const ids = new Set(monitor.targets.map((t) => t.id));
    for (const id of [...monitor.baseline.keys()]) if (!ids.has(id)) monitor.baseline.delete(id);
  }
  if (input.webhook !== undefined) monitor.webhook = webhookOf(input.webhook);
  if (input.notification !== undefined) monitor.notification = input.notification;
  if (input.retentionDays !== undefined) monitor.retentionDays = input.retentionDays;
  if (input.goal !== undefined) monitor.goal = input.goal;
  if (input.goal !== undefined || input.judgeEnabled !== undefined) monitor.judgeEnabled = judgeEnabledOf(monitor.goal, input.judgeEnabled);
  if (input.status !== undefined) monitor.status = input.status;
  monitor.updatedAt = now;
  mod.scheduler.arm(monitor);
  return { body: { success: true, data: serializeMonitor(monitor, now) } };
}

async function remove(mod: MonitorModule, req: RouteRequest): Promise<RouteResponse<MonitorDeleteResponse>> {
  const monitor = find(mod, req);
  mod.scheduler.disarm(monitor.id);
  mod.store.delete(monitor.id);
  await mod.runner.stop(monitor);
  return { body: { success: true } };
}

function run(mod: MonitorModule, req: RouteRequest): RouteResponse<MonitorRunResponse> {
  const monitor = find(mod, req);
  if (monitor.status === 'paused') throw new HttpError(409, 'Monitor is paused. Resume it before running a check.', { code: 'CONFLICT' });
  if (monitor.currentCheckId !== null) {
    throw new HttpError(409, 'Monitor check is already running.', { code: 'CONFLICT', extra: { checkId: monitor.currentCheckId } });
  }
  const check = mod.runner.start(monitor, 'manual', null);
  return { body: { success: true, id: check.id, data: serializeCheck(check) } };
}

function listChecks(mod: MonitorModule, req: RouteRequest): RouteResponse<MonitorCheckListResponse> {
  const monitor = find(mod, req);
  const q = parseQuery(listMonitorChecksQuerySchema, req.query);
  const offset = q.offset ?? 0;
  const checks = mod.store.checksOf(monitor).filter((c) => q.status === undefined || c.status === q.status);
  return { body: { success: true, data: checks.slice(offset, offset + (q.limit ?? DEFAULT_MONITOR_LIST_LIMIT)).map(serializeCheck) } };
}

function getCheck(mod: MonitorModule, req: RouteRequest): RouteResponse<MonitorCheckDetailResponse> {
  const monitor = find(mod, req);
  const checkId = assertJobId(req.params.checkId, 'check id');
  const check = mod.store.check(monitor, checkId);
  if (!check) throw new HttpError(404, 'Check not found', { code: 'NOT_FOUND' });
  const q = parseQuery(monitorCheckQuerySchema, req.query);
  const skip = q.skip ?? 0;
  const limit = q.limit ?? DEFAULT_MONITOR_LIST_LIMIT;
  const pages = check.pages.filter((p) => q.status === undefined || p.status === q.status);
  const slice = pages.slice(skip, skip + limit);
  let next: string | undefined;
  if (skip + slice.length < pages.length) {
    const url = new URL(`/v2/monitor/${monitor.id}/checks/${check.id}`, req.baseUrl);
    url.searchParams.set('skip', String(skip + slice.length));
    url.searchParams.set('limit', String(limit));
    if (q.status) url.searchParams.set('status', q.status);
    next = url.href;
  }
  const data = { ...serializeCheck(check), pages: slice.map(serializeCheckPage), ...(next ? { next } : {}) };
  return { body: { success: true, ...(next ? { next } : {}), data } };
}

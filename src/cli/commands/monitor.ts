// `webdata monitor create|list|run|checks|delete`: the service's own recurring checks
// (/v2/monitor), over WEBDATA_API_URL and WEBDATA_API_KEY; no Temporal involved. A check's
// pages stay on the service; `--series` names the change-report series the webhook receiver
// records each check in, for `webdata changes`.
import { parseArgs } from 'node:util';
import { WebDataClient, isWebDataApiError, type CreateMonitorRequest, type MonitorCheck, type MonitorCheckPage } from 'webdata-client';
import { CliError, oneLine, UsageError } from '../errors.js';

const USAGE = `usage: webdata monitor create <name> <url>... [--crawl] [--every TEXT | --cron EXPR] [--timezone TZ] [--webhook URL] [--series NAME] [--crawl-limit N] [--retention-days N] [--goal TEXT]
       webdata monitor list | run <monitor-id> [--wait] | checks <monitor-id> [--check CHECK-ID] | delete <monitor-id>   (all take --json)`;

export async function monitorCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      crawl: { type: 'boolean' }, every: { type: 'string' }, cron: { type: 'string' }, timezone: { type: 'string' },
      webhook: { type: 'string' }, series: { type: 'string' }, 'crawl-limit': { type: 'string' }, 'retention-days': { type: 'string' }, goal: { type: 'string' },
      wait: { type: 'boolean' }, check: { type: 'string' }, json: { type: 'boolean' },
    },
  });
  const [sub, ...args] = positionals;
  if (!sub) throw new UsageError(`a subcommand is required: ${USAGE}`);
  const url = env.WEBDATA_API_URL;
  const key = env.WEBDATA_API_KEY;
  if (!url || !key) throw new UsageError('WEBDATA_API_URL and WEBDATA_API_KEY are required (`webdata dev` prints them)');
  const api = new WebDataClient({ apiKey: key, baseUrl: url });
  const print = (value: unknown, text: () => void) => (values.json ? console.log(JSON.stringify(value, null, 2)) : text());
  try {
    switch (sub) {
      case 'create': {
        const body = createBody(args, values);
        const r = await api.createMonitor(body);
        print(r.data, () => console.log(`monitor ${r.data.id} "${r.data.name}": ${r.data.schedule.cron} (${r.data.schedule.timezone}), next run ${r.data.nextRunAt ?? 'none'}, about ${r.data.estimatedCreditsPerMonth ?? '?'} credits a month`));
        return 0;
      }
      case 'list': {
        const r = await api.listMonitors({ limit: 100 });
        print(r.data, () => {
          if (r.data.length === 0) console.log('no monitors');
          for (const m of r.data) console.log(`${m.id}  ${m.status.padEnd(6)}  ${m.schedule.cron.padEnd(14)}  ${m.name}${m.lastCheckSummary ? `  last: ${summaryLine(m.lastCheckSummary)}` : ''}`);
        });
        return 0;
      }
      case 'run': {
        const id = one(args, 'run');
        const r = await api.runMonitor(id);
        let check: MonitorCheck = r.data;
        if (values.wait) check = await waitForCheck(api, id, r.id);
        print(check, () => console.log(`check ${check.id}: ${check.status}${check.finishedAt ? ` · ${summaryLine(check.summary)} · ${check.actualCredits ?? 0} credits` : ''}`));
        return 0;
      }
      case 'checks': {
        const id = one(args, 'checks');
        if (values.check) {
          const first = await api.getMonitorCheck(id, values.check, { limit: 100 });
          const pages: MonitorCheckPage[] = [];
          for await (const page of api.monitorCheckPages(id, first)) pages.push(...page.data.pages);
          print({ ...first.data, pages, next: undefined }, () => {
            console.log(`check ${first.data.id}: ${first.data.status} · ${summaryLine(first.data.summary)}`);
            for (const p of pages) {
              console.log(`  ${p.status.padEnd(7)}  ${p.url}${p.error ? `  (${p.error})` : ''}`);
              if (p.judgment) console.log(`           judged ${p.judgment.meaningful ? 'meaningful' : 'not meaningful'} (${p.judgment.confidence}): ${oneLine(p.judgment.reason)}`);
            }
          });
          return 0;
        }
        const checks: MonitorCheck[] = [];
        for await (const c of api.allMonitorChecks(id)) checks.push(c);
        print(checks, () => {
          if (checks.length === 0) console.log('no checks yet');
          for (const c of checks) console.log(`${c.id}  ${c.trigger.padEnd(9)}  ${c.status.padEnd(9)}  ${summaryLine(c.summary)}`);
        });
        return 0;
      }
      case 'delete': {
        const id = one(args, 'delete');
        await api.deleteMonitor(id);
        print({ deleted: id }, () => console.log(`monitor ${id} deleted`));
        return 0;
      }
      default:
        throw new UsageError(`unknown subcommand "${sub}": ${USAGE}`);
    }
  } catch (err) {
    if (isWebDataApiError(err) && err.kind === 'not_available') {
      throw new CliError(`${url} has no monitor routes (the open-source server has none): use \`webdata schedule\` for recurring runs there`, 1, { cause: err });
    }
    if (isWebDataApiError(err)) throw new CliError(oneLine(err.message), err.kind === 'validation' ? 2 : 1, { cause: err });
    throw err;
  } finally {
    await api.close();
  }
}

function one(args: string[], sub: string): string {
  if (args.length !== 1) throw new UsageError(`monitor ${sub} takes one monitor id: ${USAGE}`);
  return args[0];
}

type Flags = { crawl?: boolean; every?: string; cron?: string; timezone?: string; webhook?: string; series?: string; 'crawl-limit'?: string; 'retention-days'?: string; goal?: string };

function createBody(args: string[], f: Flags): CreateMonitorRequest {
  const [name, ...urls] = args;
  if (!name || urls.length === 0) throw new UsageError(`monitor create needs a name and at least one URL: ${USAGE}`);
  if ((f.every === undefined) === (f.cron === undefined)) throw new UsageError('monitor create: exactly one of --every TEXT (e.g. "every 6 hours", "daily") or --cron EXPR is required');
  if (f.series !== undefined && f.webhook === undefined) throw new UsageError('monitor create: --series needs --webhook (the receiver records the checks)');
  const whole = (flag: string, v: string | undefined) => {
    if (v === undefined) return undefined;
    if (!/^\d+$/.test(v)) throw new UsageError(`monitor create: ${flag}: must be a whole number, got "${v}"`);
    return Number(v);
  };
  const limit = whole('--crawl-limit', f['crawl-limit']);
  const retentionDays = whole('--retention-days', f['retention-days']);
  const targets: CreateMonitorRequest['targets'] = f.crawl
    ? urls.map((url) => ({ type: 'crawl' as const, url, ...(limit !== undefined ? { crawlOptions: { limit } } : {}) }))
    : [{ type: 'scrape' as const, urls }];
  return {
    name,
    schedule: { ...(f.every !== undefined ? { text: f.every } : { cron: f.cron }), ...(f.timezone ? { timezone: f.timezone } : {}) },
    targets,
    ...(f.webhook ? { webhook: { url: f.webhook, events: ['monitor.check.completed' as const], ...(f.series ? { metadata: { series: f.series } } : {}) } } : {}),
    ...(retentionDays !== undefined ? { retentionDays } : {}),
    // The client checks the goal against the contract's limit before anything is sent.
    ...(f.goal !== undefined ? { goal: f.goal } : {}),
  };
}

function summaryLine(s: MonitorCheck['summary']): string {
  return `${s.totalPages} pages: ${s.new} new · ${s.changed} changed · ${s.same} same · ${s.removed} removed · ${s.error} error`;
}

const WAIT_MS = 30 * 60_000;

async function waitForCheck(api: WebDataClient, monitorId: string, checkId: string): Promise<MonitorCheck> {
  const end = Date.now() + WAIT_MS;
  for (let delay = 250; ; delay = Math.min(5_000, delay * 2)) {
    const r = await api.getMonitorCheck(monitorId, checkId, { limit: 1 });
    if (r.data.finishedAt) return r.data;
    if (Date.now() > end) throw new CliError(`check ${checkId} still ${r.data.status} after 30 minutes: \`webdata monitor checks ${monitorId}\` shows it later`);
    await new Promise((res) => setTimeout(res, delay));
  }
}

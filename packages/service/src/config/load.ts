// Reads and validates a config file; every problem becomes one readable line.
import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import type { ServiceConfig } from '../core/service.js';
import type { TeamConfig } from '../core/teams.js';
import { configFileSchema } from './schema.js';

export interface LoadedConfig {
  port?: number;
  host?: string;
  teams: TeamConfig[];
  config: Partial<ServiceConfig>;
  site?: { port?: number; pages?: number; seed?: number } | false;
}

/** A config file that cannot be used; `problems` holds one line per issue. */
export class ConfigError extends Error {
  readonly problems: string[];
  constructor(source: string, problems: string[]) {
    super(`invalid service config ${source}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const part of path) {
    out += typeof part === 'number' ? `[${part}]` : `${out ? '.' : ''}${String(part)}`;
  }
  return out || '(root)';
}

export function formatIssues(issues: ReadonlyArray<z.core.$ZodIssue>): string[] {
  return issues.map((issue) => `${formatPath(issue.path)}: ${issue.message}`);
}

/** Validates an already parsed config value. */
export function parseConfig(value: unknown, source = '(inline)'): LoadedConfig {
  const parsed = configFileSchema.safeParse(value);
  if (!parsed.success) throw new ConfigError(source, formatIssues(parsed.error.issues));
  const file = parsed.data;
  const config: Partial<ServiceConfig> = {};
  const svc = file.service ?? {};
  if (svc.jobTtlMs !== undefined) config.jobTtlMs = svc.jobTtlMs;
  if (svc.allowNonLoopback !== undefined) config.allowNonLoopback = svc.allowNonLoopback;
  if (svc.pageByteLimit !== undefined) config.pageByteLimit = svc.pageByteLimit;
  if (svc.supportBudgetMs !== undefined) config.supportBudgetMs = svc.supportBudgetMs;
  if (svc.imitate !== undefined) config.imitate = svc.imitate;
  if (svc.webhook) {
    config.webhook = {
      timeoutMs: svc.webhook.timeoutMs ?? 10_000,
      retryDelaysMs: svc.webhook.retryDelaysMs ?? [1000, 5000, 15000],
    };
  }
  return { port: file.port, host: file.host, teams: file.teams, config, site: file.site };
}

/** Reads a JSON config file; throws ConfigError with one line per problem. */
export function loadConfigFile(path: string): LoadedConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(path, [`cannot read file: ${(err as Error).message}`]);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(path, [`not valid JSON: ${(err as Error).message}`]);
  }
  return parseConfig(value, path);
}

// Shared flags of `webdata run` and `webdata schedule create`, turned into a PipelineInput.
import { readFileSync } from 'node:fs';
import type { PipelineInput } from '../workflows/input.js';
import { STAGES } from '../workflows/input.js';

export const runFlags = {
  input: { type: 'string' },
  mode: { type: 'string' },
  include: { type: 'string', multiple: true },
  exclude: { type: 'string', multiple: true },
  search: { type: 'string' },
  limit: { type: 'string' },
  'crawl-limit': { type: 'string' },
  depth: { type: 'string' },
  budget: { type: 'string' },
  'monthly-cap': { type: 'string' },
  skip: { type: 'string' },
  'interact-match': { type: 'string' },
  'interact-code': { type: 'string' },
  'interact-language': { type: 'string' },
  'interact-prompt': { type: 'string' },
  'webhook-url': { type: 'string' },
  'task-queue': { type: 'string' },
  'workflow-id': { type: 'string' },
} as const;

type Values = { [K in keyof typeof runFlags]?: (typeof runFlags)[K] extends { multiple: true } ? string[] : string };

function int(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new Error(`--${name}: must be a whole number, got "${value}"`);
  return Number(value);
}

export function inputFromFlags(url: string | undefined, v: Values): PipelineInput {
  const base = (v.input ? JSON.parse(readFileSync(v.input, 'utf8')) : {}) as Record<string, unknown>;
  const input: Record<string, unknown> = { ...base };
  if (url) input.url = url;
  if (v.mode) input.mode = v.mode;
  if (v.include || v.exclude || v.search || v.limit) {
    input.select = { ...(base.select as object), include: v.include, exclude: v.exclude, search: v.search, limit: int('limit', v.limit) };
  }
  if (v['crawl-limit'] || v.depth) {
    input.crawl = { ...(base.crawl as object), limit: int('crawl-limit', v['crawl-limit']), maxDiscoveryDepth: int('depth', v.depth) };
  }
  if (v.budget || v['monthly-cap']) {
    input.budget = { ...(base.budget as object), credits: int('budget', v.budget) ?? (base.budget as { credits?: number } | undefined)?.credits ?? 0, monthlyCap: int('monthly-cap', v['monthly-cap']) };
  }
  if (v.skip) {
    const stages: Record<string, boolean> = { ...(base.stages as object) };
    for (const s of v.skip.split(',').map((x) => x.trim()).filter(Boolean)) {
      if (!(STAGES as readonly string[]).includes(s)) throw new Error(`--skip: unknown stage "${s}" (stages: ${STAGES.join(', ')})`);
      stages[s] = false;
    }
    input.stages = stages;
  }
  if (v['interact-match']) {
    input.interact = {
      match: v['interact-match'],
      ...(v['interact-prompt'] ? { prompt: v['interact-prompt'] } : { code: v['interact-code'] ?? 'await page.title()' }),
      ...(v['interact-language'] ? { language: v['interact-language'] } : {}),
    };
  }
  if (v['webhook-url']) input.webhookUrl = v['webhook-url'];
  return JSON.parse(JSON.stringify(input)) as PipelineInput; // drops undefined members
}

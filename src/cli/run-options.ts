// Shared flags of `webdata run` and `webdata schedule create`, turned into a PipelineInput.
// Flags override single fields of the --input file and keep the rest (deep merge): `--depth 2`
// changes crawl.maxDiscoveryDepth and keeps crawl.limit from the file.
import { readFileSync } from 'node:fs';
import type { PipelineInput } from '../workflows/input.js';
import { parsePipelineInput, PipelineInputError, recordAddressPolicy, STAGES } from '../workflows/input.js';
import { addressPolicy } from '../client/address-policy.js';
import { oneLine, UsageError } from './errors.js';
import { runFlags } from './run-flags.js';

export { runFlags };

type Values = { [K in keyof typeof runFlags]?: (typeof runFlags)[K] extends { multiple: true } ? string[] : (typeof runFlags)[K] extends { type: 'boolean' } ? boolean : string };
type Obj = Record<string, unknown>;

function int(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value.trim())) throw new UsageError(`--${name}: must be a whole number (0 or more), got "${value}"`);
  return Number(value);
}

function readInputFile(file: string): Obj {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a folder, not a JSON file' : oneLine((err as Error).message);
    throw new UsageError(`--input ${file}: ${why}`, { cause: err });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--input ${file}: not valid JSON (${oneLine((err as Error).message)})`, { cause: err });
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError(`--input ${file}: must hold a JSON object (a PipelineInput), not ${Array.isArray(parsed) ? 'an array' : typeof parsed}`);
  return parsed as Obj;
}

/** Sets `section.field = value` unless value is undefined, keeping the section's other fields. */
function setField(input: Obj, section: string, field: string, value: unknown): void {
  if (value === undefined) return;
  const current = input[section];
  input[section] = { ...(current && typeof current === 'object' ? (current as Obj) : {}), [field]: value };
}

export function inputFromFlags(url: string | undefined, v: Values): PipelineInput {
  const input: Obj = v.input ? readInputFile(v.input) : {};
  if (url) input.url = url;
  if (v.mode !== undefined) input.mode = v.mode;
  setField(input, 'select', 'include', v.include);
  setField(input, 'select', 'exclude', v.exclude);
  setField(input, 'select', 'search', v.search);
  setField(input, 'select', 'limit', int('limit', v.limit));
  setField(input, 'crawl', 'limit', int('crawl-limit', v['crawl-limit']));
  setField(input, 'crawl', 'maxDiscoveryDepth', int('depth', v.depth));
  setField(input, 'budget', 'credits', int('budget', v.budget));
  setField(input, 'budget', 'monthlyCap', int('monthly-cap', v['monthly-cap']));
  if (input.budget && (input.budget as Obj).credits === undefined) {
    throw new UsageError('--monthly-cap needs a run budget too: add --budget N (credits this run may spend)');
  }
  if (v.skip !== undefined) {
    for (const s of v.skip.split(',').map((x) => x.trim()).filter(Boolean)) {
      if (!(STAGES as readonly string[]).includes(s)) throw new UsageError(`--skip: unknown stage "${s}" (stages: ${STAGES.join(', ')})`);
      setField(input, 'stages', s, false);
    }
  }
  if (v['interact-code'] !== undefined || v['interact-prompt'] !== undefined) {
    if (v['interact-code'] !== undefined && v['interact-prompt'] !== undefined) throw new UsageError('--interact-code and --interact-prompt: give one of them, not both');
    if (v['interact-match'] === undefined && !(input.interact as Obj | undefined)?.match) throw new UsageError('--interact-code/--interact-prompt need --interact-match RE (which pages get the follow-up)');
    // One of code or prompt: the flag replaces whichever the file had.
    const { code: _code, prompt: _prompt, ...rest } = (input.interact ?? {}) as Obj;
    input.interact = { ...rest, ...(v['interact-code'] !== undefined ? { code: v['interact-code'] } : { prompt: v['interact-prompt'] }) };
  }
  setField(input, 'interact', 'match', v['interact-match']);
  setField(input, 'interact', 'language', v['interact-language']);
  const interact = input.interact as Obj | undefined;
  if (interact && interact.code === undefined && interact.prompt === undefined) interact.code = 'await page.title()';
  setField(input, 'agent', 'prompt', v['agent-prompt']);
  setField(input, 'agent', 'model', v['agent-model']);
  setField(input, 'agent', 'maxCredits', int('agent-max-credits', v['agent-max-credits']));
  if (v['webhook-url'] !== undefined) input.webhookUrl = v['webhook-url'];
  if (v.tenant !== undefined) input.tenant = v.tenant;
  if (v.priority !== undefined) input.priorityKey = int('priority', v.priority);
  if (v['api-key-ref'] !== undefined) input.apiKeyRef = v['api-key-ref'];
  return JSON.parse(JSON.stringify(input)) as PipelineInput; // drops undefined members
}

/** The input, validated with the workflow's own schema: a bad field is a usage error (exit 2). */
/** The input from --input and flags; `defaults` fill fields neither sets (a schedule's `changes`). */
export function validatedInput(url: string | undefined, v: Values, defaults: Partial<PipelineInput> = {}): PipelineInput {
  const input = { ...defaults, ...inputFromFlags(url, v) };
  if (input.url === undefined) throw new UsageError('a start URL is required: webdata run <url> (or "url" in the --input file)');
  try {
    const policy = addressPolicy();
    parsePipelineInput(recordAddressPolicy(input, policy), policy);
  } catch (err) {
    if (err instanceof PipelineInputError) {
      const where = v.input ? ` (input from --input ${v.input} and flags)` : '';
      throw new UsageError(`invalid input${where}: ${err.issues.map((i) => `${i.path || '(input)'}: ${i.message}`).join('; ')}`, { cause: err });
    }
    throw err;
  }
  return input;
}

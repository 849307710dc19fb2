// The AI judge of a monitor with a `goal` (contract notes, Monitor): each new or changed page of
// a check is put to the configured OpenAI-compatible model (LLM_BASE_URL, as the json/summary
// formats and interact prompts) with the goal and the page's diff or text, and its answer is
// kept only when it is the judgment's exact shape. A failed call or a malformed answer is a
// typed failure the runner logs, leaving the page without a judgment: never one made up.
import { z } from 'zod';
import type { MonitorJudgment } from 'webdata-contract';
import { chatWithUsage, jsonObjectOf, ModelError, type ChatMessage } from '../agent/model.js';
import type { LlmConfig } from '../interact/llm-config.js';

/** Diff or page text given to the model: enough for a page's change, bounded for any page. */
const MAX_CHANGE_CHARS = 50_000;

const text = z.string().max(10_000);

/** The model's answer, as strict as the contract's MonitorJudgment (no extra keys). */
export const judgmentAnswerSchema = z.strictObject({
  meaningful: z.boolean(),
  confidence: z.enum(['high', 'medium', 'low']),
  reason: text,
  meaningfulChanges: z.array(z.strictObject({
    type: z.enum(['added', 'removed', 'changed']),
    before: text.nullable(),
    after: text.nullable(),
    reason: text,
  })).max(100),
}) satisfies z.ZodType<MonitorJudgment>;

export interface JudgedPage {
  url: string;
  status: 'new' | 'changed';
  /** The unified diff against the previous check (changed pages). */
  diffText: string | null;
  /** The page's markdown (what a new page is judged on). */
  markdown: string;
}

export type JudgeResult =
  | { kind: 'judged'; judgment: MonitorJudgment }
  | { kind: 'failed'; reason: string };

function messages(goal: string, page: JudgedPage): ChatMessage[] {
  const system = [
    'You judge whether a change to a monitored web page matters for the user\'s goal.',
    'Answer with one JSON object and nothing else, exactly these keys:',
    '{"meaningful": boolean, "confidence": "high" | "medium" | "low", "reason": string,',
    ' "meaningfulChanges": [{"type": "added" | "removed" | "changed", "before": string | null, "after": string | null, "reason": string}]}',
    '"meaningfulChanges" lists only the changes that matter for the goal (empty when none does).',
  ].join('\n');
  const change = page.status === 'changed' && page.diffText
    ? `<diff url="${page.url}">\n${page.diffText.slice(0, MAX_CHANGE_CHARS)}\n</diff>`
    : `The page is new since the previous check.\n<page url="${page.url}">\n${page.markdown.slice(0, MAX_CHANGE_CHARS)}\n</page>`;
  return [{ role: 'system', content: system }, { role: 'user', content: `<goal>\n${goal}\n</goal>\n${change}` }];
}

/** One page's judgment, or why there is none (the model failed or answered another shape). */
export async function judgePage(llm: LlmConfig, goal: string, page: JudgedPage, signal: AbortSignal): Promise<JudgeResult> {
  let answer: Record<string, unknown>;
  try {
    answer = jsonObjectOf((await chatWithUsage(llm, messages(goal, page), signal)).content);
  } catch (err) {
    if (err instanceof ModelError) return { kind: 'failed', reason: err.message };
    throw err;
  }
  const parsed = judgmentAnswerSchema.safeParse(answer);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { kind: 'failed', reason: `model answered no judgment (${issue.path.join('.') || 'answer'}: ${issue.message})` };
  }
  return { kind: 'judged', judgment: parsed.data };
}

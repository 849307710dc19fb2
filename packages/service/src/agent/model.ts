// One chat completion against the configured OpenAI-compatible endpoint, with the tokens it
// used (the answer's `usage.total_tokens`; estimated at 4 characters a token when absent).
import { HttpError } from '../core/http-error.js';
import type { LlmConfig } from '../interact/llm-config.js';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export class ModelError extends Error {
  override readonly name = 'ModelError';
}

export function agentNotConfigured(what: 'Agent' | 'Extract'): HttpError {
  return new HttpError(503, `${what} needs an AI model: set LLM_BASE_URL (and LLM_API_KEY, LLM_MODEL) to an OpenAI-compatible chat-completions endpoint`, {
    code: 'AI_NOT_CONFIGURED',
  });
}

export async function chatWithUsage(llm: LlmConfig, messages: ChatMessage[], signal: AbortSignal): Promise<{ content: string; tokens: number }> {
  const timeout = AbortSignal.timeout(60_000);
  let res: Response;
  try {
    res = await fetch(`${llm.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(llm.apiKey ? { authorization: `Bearer ${llm.apiKey}` } : {}) },
      body: JSON.stringify({ model: llm.model, messages, temperature: 0, response_format: { type: 'json_object' } }),
      signal: AbortSignal.any([signal, timeout]),
    });
  } catch (err) {
    if (signal.aborted) throw err;
    throw new ModelError(`model endpoint unreachable (${err instanceof Error ? err.message : String(err)})`);
  }
  const text = await res.text().catch(() => '');
  if (!res.ok) throw new ModelError(`model endpoint answered HTTP ${res.status}: ${text.slice(0, 200)}`);
  let parsed: { choices?: Array<{ message?: { content?: unknown } }>; usage?: { total_tokens?: unknown } };
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    throw new ModelError('model endpoint answered something other than JSON');
  }
  const content = parsed.choices?.[0]?.message?.content;
  if (typeof content !== 'string' || content.trim() === '') throw new ModelError('model answered no text');
  const reported = parsed.usage?.total_tokens;
  const estimated = Math.ceil((messages.reduce((n, m) => n + m.content.length, 0) + content.length) / 4);
  return { content, tokens: typeof reported === 'number' && reported >= 0 ? reported : estimated };
}

/** The first JSON object of a model's answer (code fences tolerated). */
export function jsonObjectOf(content: string): Record<string, unknown> {
  const trimmed = content.trim().replace(/^```(?:json)?\s*/i, '').replace(/\s*```$/, '');
  const start = trimmed.indexOf('{');
  const end = trimmed.lastIndexOf('}');
  if (start >= 0 && end > start) {
    try {
      const value = JSON.parse(trimmed.slice(start, end + 1)) as unknown;
      if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // fall through
    }
  }
  throw new ModelError('model answered no valid JSON object');
}

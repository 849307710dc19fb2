// A minimal OpenAI-compatible chat client (POST {baseUrl}/chat/completions), configured by
// LLM_BASE_URL, LLM_API_KEY and LLM_MODEL. Used by crawl prompts (JSON options) and by
// support ask (rephrasing an answer). Without configuration nothing calls a model.

export interface LlmConfig {
  /** e.g. "http://127.0.0.1:8080/v1" (the path that holds /chat/completions). */
  baseUrl: string;
  apiKey?: string;
  model: string;
  /** Per call; default 30 s. */
  timeoutMs?: number;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** The model configured in the environment, or undefined when LLM_BASE_URL or LLM_MODEL is unset. */
export function llmConfigFromEnv(env: NodeJS.ProcessEnv = process.env): LlmConfig | undefined {
  const baseUrl = env.LLM_BASE_URL?.trim();
  const model = env.LLM_MODEL?.trim();
  if (!baseUrl || !model) return undefined;
  const apiKey = env.LLM_API_KEY?.trim();
  return { baseUrl, model, ...(apiKey ? { apiKey } : {}) };
}

export class LlmError extends Error {
  override readonly name = 'LlmError';
}

/** One chat completion; returns the first choice's text. Throws LlmError on any failure. */
export async function chat(
  config: LlmConfig,
  messages: ChatMessage[],
  opts: { json?: boolean; signal?: AbortSignal; maxTokens?: number } = {},
): Promise<string> {
  const url = `${config.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const timeout = AbortSignal.timeout(config.timeoutMs ?? 30_000);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  const body: Record<string, unknown> = { model: config.model, messages, temperature: 0 };
  if (opts.json) body.response_format = { type: 'json_object' };
  if (opts.maxTokens) body.max_tokens = opts.maxTokens;
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}) },
      body: JSON.stringify(body),
      signal,
    });
  } catch (err) {
    throw new LlmError(`model endpoint unreachable (${err instanceof Error ? err.message : String(err)})`);
  }
  const text = await res.text().catch(() => '');
  if (!res.ok) throw new LlmError(`model endpoint answered HTTP ${res.status}: ${text.slice(0, 200)}`);
  let content: unknown;
  try {
    content = (JSON.parse(text) as { choices?: Array<{ message?: { content?: unknown } }> }).choices?.[0]?.message?.content;
  } catch {
    throw new LlmError('model endpoint answered something other than JSON');
  }
  if (typeof content !== 'string' || content.trim() === '') throw new LlmError('model answered no text');
  return content;
}

/** A chat completion parsed as one JSON object (code fences tolerated). */
export async function chatJson(config: LlmConfig, messages: ChatMessage[], opts: { signal?: AbortSignal } = {}): Promise<Record<string, unknown>> {
  const content = await chat(config, messages, { json: true, signal: opts.signal });
  const trimmed = content.trim().replace(/^```(?:json)?\s*/i, '').replace(/\s*```$/, '');
  const start = trimmed.indexOf('{');
  const end = trimmed.lastIndexOf('}');
  if (start < 0 || end < start) throw new LlmError('model answered no JSON object');
  try {
    const value = JSON.parse(trimmed.slice(start, end + 1)) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new LlmError('model answered invalid JSON');
}

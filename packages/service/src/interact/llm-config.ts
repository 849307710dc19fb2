// The OpenAI-compatible model behind interact `prompt`: configured by LLM_BASE_URL
// (+ LLM_API_KEY, LLM_MODEL). Without it, prompts answer a clear 503, never a made-up answer.
import { HttpError } from '../core/http-error.js';

export interface LlmConfig {
  baseUrl: string;
  apiKey?: string;
  model: string;
}

export function llmConfigFromEnv(env: NodeJS.ProcessEnv = process.env): LlmConfig | undefined {
  const baseUrl = env.LLM_BASE_URL?.trim();
  if (!baseUrl) return undefined;
  return { baseUrl: baseUrl.replace(/\/+$/, ''), apiKey: env.LLM_API_KEY || undefined, model: env.LLM_MODEL || 'gpt-4o-mini' };
}

export function promptNotConfigured(): HttpError {
  return new HttpError(503, 'Interact prompts need an AI model: set LLM_BASE_URL (and LLM_API_KEY, LLM_MODEL) to an OpenAI-compatible chat-completions endpoint', {
    code: 'AI_NOT_CONFIGURED',
  });
}

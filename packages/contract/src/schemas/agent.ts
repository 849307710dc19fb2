// POST /v2/agent and POST /v2/extract (contract notes "Shapes of routes the reference names
// without showing"): AI data gathering over web pages, answered by a job id, read by GET.
import { z } from 'zod';
import { body, httpUrl, int } from './common.js';
import { scrapeOptionsSchema } from './scrape.js';
import { agentWebhookSpecSchema, webhookSpecSchema } from './webhook.js';
import { AGENT_MODELS, MAX_AGENT_PROMPT, MAX_AGENT_URLS, MAX_EXTRACT_URLS } from '../defaults.js';

/** A JSON schema object the answer must follow. */
const jsonSchemaObject = z.record(z.string(), z.unknown());

export const agentRequestSchema = body({
  prompt: z.string().min(1).max(MAX_AGENT_PROMPT),
  urls: z.array(httpUrl).min(1).max(MAX_AGENT_URLS).optional(),
  schema: jsonSchemaObject.optional(),
  /** The API's only per-request credit cap: the agent stops before spending more. */
  maxCredits: int.min(1).optional(),
  strictConstrainToURLs: z.boolean().optional(),
  /** The hosted service's agent models (default spark-1-pro there); a local model answers for any. */
  model: z.enum(AGENT_MODELS).optional(),
  webhook: agentWebhookSpecSchema.optional(),
}).superRefine((value, ctx) => {
  if (value.strictConstrainToURLs === true && value.urls === undefined) {
    ctx.addIssue({ code: 'custom', path: ['urls'], message: 'is required when strictConstrainToURLs is true' });
  }
});

export const extractRequestSchema = body({
  urls: z.array(httpUrl).min(1).max(MAX_EXTRACT_URLS),
  prompt: z.string().min(1).max(MAX_AGENT_PROMPT).optional(),
  schema: jsonSchemaObject.optional(),
  systemPrompt: z.string().min(1).max(MAX_AGENT_PROMPT).optional(),
  enableWebSearch: z.boolean().optional(),
  showSources: z.boolean().optional(),
  scrapeOptions: scrapeOptionsSchema.optional(),
  webhook: webhookSpecSchema.optional(),
}).superRefine((value, ctx) => {
  if (value.prompt === undefined && value.schema === undefined) {
    ctx.addIssue({ code: 'custom', path: ['prompt'], message: 'prompt or schema is required' });
  }
});

export type AgentRequest = z.input<typeof agentRequestSchema>;
export type AgentRequestParsed = z.output<typeof agentRequestSchema>;
export type ExtractRequest = z.input<typeof extractRequestSchema>;
export type ExtractRequestParsed = z.output<typeof extractRequestSchema>;

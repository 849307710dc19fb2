// The `json` and `summary` formats (contract notes "What the hosted service added by 2026"):
// the engine below scrapes the page as markdown, then the configured OpenAI-compatible model
// (LLM_BASE_URL, as agent and interact prompts) answers each format from it. Without a model:
// 503 AI_NOT_CONFIGURED, never a made-up answer. `changeTracking` is left to the engine below.
import { HttpError } from '../core/http-error.js';
import type { PageDocument, ScrapeEngine, ScrapeOutcome } from '../core/scrape.js';
import { chatWithUsage, jsonObjectOf, ModelError, type ChatMessage } from '../agent/model.js';
import { llmConfigFromEnv, type LlmConfig } from '../interact/llm-config.js';

export interface ModelFormats {
  json?: { schema?: Record<string, unknown>; prompt?: string };
  summary: boolean;
}

/** Page text given to the model: enough for any page a test or a user would ask about. */
const MAX_PAGE_CHARS = 100_000;

function nameOf(format: unknown): string | undefined {
  if (typeof format === 'string') return format.split('@')[0];
  const type = (format as { type?: unknown } | null)?.type;
  return typeof type === 'string' ? type : undefined;
}

/** The model formats a `formats` list asks for (none: `undefined`). */
export function modelFormatsOf(formats: unknown): ModelFormats | undefined {
  if (!Array.isArray(formats)) return undefined;
  let json: ModelFormats['json'];
  let summary = false;
  for (const f of formats) {
    const name = nameOf(f);
    if (name === 'summary') summary = true;
    if (name === 'json') {
      const o = (typeof f === 'object' ? f : {}) as { schema?: Record<string, unknown>; prompt?: string };
      json = { ...(o.schema ? { schema: o.schema } : {}), ...(o.prompt ? { prompt: o.prompt } : {}) };
    }
  }
  return json || summary ? { json, summary } : undefined;
}

export function formatsNotConfigured(names: string): HttpError {
  return new HttpError(503, `The ${names} format needs an AI model: set LLM_BASE_URL (and LLM_API_KEY, LLM_MODEL) to an OpenAI-compatible chat-completions endpoint`, {
    code: 'AI_NOT_CONFIGURED',
  });
}

function wantedNames(wanted: ModelFormats): string {
  return [wanted.json ? '"json"' : '', wanted.summary ? '"summary"' : ''].filter(Boolean).join(' and ');
}

/** Refuses, before a job starts, scrape options with model formats when no model is configured. */
export function assertModelFormatsServed(scrapeOptions: { formats?: unknown } | undefined, llm = llmConfigFromEnv()): void {
  const wanted = modelFormatsOf(scrapeOptions?.formats);
  if (wanted && !llm) throw formatsNotConfigured(wantedNames(wanted));
}

function jsonMessages(spec: NonNullable<ModelFormats['json']>, page: PageDocument, markdown: string): ChatMessage[] {
  const system = [
    'You extract structured data from one web page. Answer with one JSON object and nothing else.',
    spec.schema ? `The object must follow this JSON schema:\n${JSON.stringify(spec.schema)}` : '',
    spec.prompt ? `What to extract: ${spec.prompt}` : '',
  ].filter(Boolean).join('\n');
  return [{ role: 'system', content: system }, { role: 'user', content: pageText(page, markdown) }];
}

function summaryMessages(page: PageDocument, markdown: string): ChatMessage[] {
  return [
    { role: 'system', content: 'You summarize one web page in a few sentences. Answer with a JSON object {"summary": "<the summary>"}.' },
    { role: 'user', content: pageText(page, markdown) },
  ];
}

function pageText(page: PageDocument, markdown: string): string {
  return `<page url="${page.metadata.sourceURL}">\n${markdown.slice(0, MAX_PAGE_CHARS)}\n</page>`;
}

function modelFailed(what: string, err: unknown): HttpError {
  return new HttpError(502, `The "${what}" format failed: ${err instanceof Error ? err.message : String(err)}`, { code: 'AI_MODEL_FAILED' });
}

async function answer(llm: LlmConfig, wanted: ModelFormats, page: PageDocument, markdown: string, signal: AbortSignal): Promise<Pick<PageDocument, 'json' | 'summary'>> {
  const ask = async <T>(what: string, messages: ChatMessage[], read: (o: Record<string, unknown>) => T): Promise<T> => {
    try {
      return read(jsonObjectOf((await chatWithUsage(llm, messages, signal)).content));
    } catch (err) {
      if (err instanceof ModelError) throw modelFailed(what, err);
      throw err;
    }
  };
  const [json, summary] = await Promise.all([
    wanted.json ? ask('json', jsonMessages(wanted.json, page, markdown), (o) => o) : undefined,
    wanted.summary
      ? ask('summary', summaryMessages(page, markdown), (o) => {
        if (typeof o.summary !== 'string') throw new ModelError('model answered no "summary" string');
        return o.summary;
      })
      : undefined,
  ]);
  return { ...(json !== undefined ? { json } : {}), ...(summary !== undefined ? { summary } : {}) };
}

/**
 * Wraps an engine so json/summary formats are answered by the model. The engine below is asked
 * for markdown (the model's input) instead of them; markdown is dropped again unless requested.
 * Pages that answered an error status (≥ 400) are returned without model formats: there is
 * nothing to extract from an error page, and no model call is spent on it.
 */
export function withModelFormats(inner: ScrapeEngine, llmConfig: () => LlmConfig | undefined = () => llmConfigFromEnv()): ScrapeEngine {
  return {
    async scrape(url, options, ctx): Promise<ScrapeOutcome> {
      const wanted = modelFormatsOf(options.formats);
      if (!wanted) return inner.scrape(url, options, ctx);
      const llm = llmConfig();
      if (!llm) throw formatsNotConfigured(wantedNames(wanted));
      const formats = (options.formats as unknown[]).filter((f) => !['json', 'summary'].includes(nameOf(f) ?? ''));
      const keepMarkdown = formats.some((f) => nameOf(f) === 'markdown');
      const outcome = await inner.scrape(url, { ...options, formats: keepMarkdown ? formats : [...formats, 'markdown'] }, ctx);
      const page = outcome.document;
      const markdown = page.markdown ?? '';
      if (!keepMarkdown) delete page.markdown;
      outcome.options = options;
      if (page.metadata.statusCode >= 400) return outcome;
      Object.assign(page, await answer(llm, wanted, page, markdown, ctx.signal ?? new AbortController().signal));
      return outcome;
    },
    close: () => inner.close(),
  };
}

// Interact `prompt`: an agent loop over an OpenAI-compatible chat-completions model that
// drives the session's page with a few browser tools until it answers in plain text.
import type { Page } from 'playwright-core';
import { HttpError } from '../core/http-error.js';
import type { LlmConfig } from './llm-config.js';

export interface PromptOutcome {
  output: string;
  /** The final page snapshot (reference 2.3: `result` for a prompt). */
  snapshot: string;
  steps: string[];
}

interface ToolCall { id: string; type: 'function'; function: { name: string; arguments: string } }
interface ChatMessage { role: 'system' | 'user' | 'assistant' | 'tool'; content: string | null; tool_calls?: ToolCall[]; tool_call_id?: string }

const MAX_STEPS = 25;

const fn = (name: string, description: string, properties: Record<string, unknown> = {}, required: string[] = []) => ({
  type: 'function',
  function: { name, description, parameters: { type: 'object', properties, required } },
});
const str = { type: 'string' };

const TOOLS = [
  fn('snapshot', 'Read the current page: URL, title, visible text and interactive elements.'),
  fn('goto', 'Navigate to a URL.', { url: str }, ['url']),
  fn('click', 'Click the first element matching a CSS or Playwright selector (e.g. text=Load more).', { selector: str }, ['selector']),
  fn('fill', 'Fill an input matching a selector with text.', { selector: str, text: str }, ['selector', 'text']),
  fn('press', 'Press a keyboard key, e.g. Enter.', { key: str }, ['key']),
  fn('scroll', 'Scroll the page.', { direction: { type: 'string', enum: ['up', 'down'] } }, ['direction']),
  fn('evaluate', 'Evaluate a JavaScript expression in the page and return its JSON value.', { expression: str }, ['expression']),
];

export async function snapshotPage(page: Page, maxChars = 8_000): Promise<string> {
  const data = await page.evaluate(() => {
    const els = Array.from(document.querySelectorAll('a[href], button, input, select, textarea, [role=button]')).slice(0, 60);
    return {
      text: document.body ? document.body.innerText : '',
      elements: els.map((e) => {
        const id = e.id ? `#${e.id}` : '';
        const label = (e.textContent || (e as HTMLInputElement).placeholder || (e as HTMLInputElement).name || '').trim().slice(0, 60);
        return `${e.tagName.toLowerCase()}${id} ${label}`.trim();
      }),
    };
  });
  const head = `URL: ${page.url()}\nTitle: ${await page.title()}\n`;
  return `${head}\nText:\n${data.text.slice(0, maxChars)}\n\nElements:\n${data.elements.join('\n')}`;
}

async function runTool(page: Page, name: string, args: Record<string, unknown>): Promise<string> {
  const s = (k: string) => String(args[k] ?? '');
  switch (name) {
    case 'snapshot': return snapshotPage(page);
    case 'goto': await page.goto(s('url'), { timeout: 30_000 }); return `navigated to ${page.url()}`;
    case 'click': await page.locator(s('selector')).first().click({ timeout: 10_000 }); await page.waitForTimeout(300); return 'clicked';
    case 'fill': await page.locator(s('selector')).first().fill(s('text'), { timeout: 10_000 }); return 'filled';
    case 'press': await page.keyboard.press(s('key')); return 'pressed';
    case 'scroll': await page.evaluate((d) => window.scrollBy(0, (d === 'up' ? -1 : 1) * window.innerHeight), s('direction')); return 'scrolled';
    case 'evaluate': return JSON.stringify(await page.evaluate(s('expression'))) ?? 'undefined';
    default: return `unknown tool ${name}`;
  }
}

async function chat(cfg: LlmConfig, messages: ChatMessage[], signal: AbortSignal): Promise<ChatMessage> {
  let res: Response;
  try {
    res = await fetch(`${cfg.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(cfg.apiKey ? { authorization: `Bearer ${cfg.apiKey}` } : {}) },
      body: JSON.stringify({ model: cfg.model, messages, tools: TOOLS, tool_choice: 'auto', temperature: 0 }),
      signal,
    });
  } catch (err) {
    if (signal.aborted) throw err;
    throw new HttpError(502, `AI agent failed: model endpoint unreachable (${(err as Error).message})`, { code: 'AI_AGENT_FAILED' });
  }
  if (!res.ok) throw new HttpError(502, `AI agent failed: model endpoint answered ${res.status}: ${(await res.text()).slice(0, 300)}`, { code: 'AI_AGENT_FAILED' });
  const body = (await res.json()) as { choices?: Array<{ message?: ChatMessage }> };
  const message = body.choices?.[0]?.message;
  if (!message) throw new HttpError(502, 'AI agent failed: the model returned no message', { code: 'AI_AGENT_FAILED' });
  return message;
}

/** Runs the loop until the model answers without tool calls; aborted by `signal` (timeout). */
export async function runPromptAgent(cfg: LlmConfig, page: Page, prompt: string, signal: AbortSignal): Promise<PromptOutcome> {
  const steps: string[] = [];
  const messages: ChatMessage[] = [
    { role: 'system', content: 'You control a web browser tab through tools. Complete the user\'s task on the current page, then reply with a short final answer and no tool calls.' },
    { role: 'user', content: `${prompt}\n\nCurrent page:\n${await snapshotPage(page, 4_000)}` },
  ];
  for (let i = 0; i < MAX_STEPS; i++) {
    const reply = await chat(cfg, messages, signal);
    messages.push({ role: 'assistant', content: reply.content ?? null, tool_calls: reply.tool_calls });
    if (!reply.tool_calls?.length) {
      return { output: reply.content ?? '', snapshot: await snapshotPage(page), steps };
    }
    for (const call of reply.tool_calls) {
      let args: Record<string, unknown> = {};
      try {
        args = JSON.parse(call.function.arguments || '{}') as Record<string, unknown>;
      } catch {
        // A malformed argument string is answered as a tool error below.
      }
      let answer: string;
      try {
        answer = await runTool(page, call.function.name, args);
      } catch (err) {
        answer = `error: ${(err as Error).message.split('\n')[0]}`;
      }
      steps.push(`${call.function.name}(${call.function.arguments}) -> ${answer.slice(0, 200)}`);
      messages.push({ role: 'tool', tool_call_id: call.id, content: answer.slice(0, 12_000) });
    }
  }
  throw new HttpError(502, `AI agent failed: no final answer after ${MAX_STEPS} steps`, { code: 'AI_AGENT_FAILED' });
}

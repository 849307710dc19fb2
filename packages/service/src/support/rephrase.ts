// With a model configured (LLM_BASE_URL, LLM_MODEL), the answer's wording may be improved;
// the diagnosis and the fix never come from the model. A rewrite is used only if it keeps
// every number and every fixParameters name of the original and stays 2-4 sentences.
import { chat, type LlmConfig } from '../crawl-prompt/llm.js';
import type { Finding } from './types.js';

const sentences = (text: string) => (text.match(/[.!?](?:\s|$)/g) ?? []).length;

export function keepsFacts(original: string, rewrite: string, fix: Record<string, unknown> | null): boolean {
  const numbers = original.match(/\d+(?:\.\d+)?/g) ?? [];
  const names = Object.keys(fix ?? {});
  const n = sentences(rewrite);
  return n >= 1 && n <= 4 && numbers.every((x) => rewrite.includes(x)) && names.every((k) => rewrite.includes(k));
}

export async function rephrase(llm: LlmConfig, finding: Finding, question: string, signal: AbortSignal): Promise<string> {
  try {
    const text = await chat(llm, [
      {
        role: 'system',
        content: 'You edit support answers of a web scraping API. Rewrite the answer in 2 to 4 clear sentences for the user\'s question. Keep every number, URL, path, id and parameter name exactly; add no advice, no facts and no parameters. Answer with the rewritten text only.',
      },
      { role: 'user', content: `Question: ${question}\n\nAnswer: ${finding.answer}` },
    ], { signal, maxTokens: 400 });
    const rewrite = text.trim();
    return keepsFacts(finding.answer, rewrite, finding.fixParameters) ? rewrite : finding.answer;
  } catch {
    return finding.answer;
  }
}

// What an agent job and an extract job do once started. Extract: scrape every URL, then one
// model call that answers from the pages. Agent: read the given URLs, then let the model either
// answer or ask for more pages (`{"read": [...]}`), a few rounds at most.
import { pageCredits } from 'webdata-contract';
import type { AgentRequestParsed, ExtractRequestParsed } from 'webdata-contract';
import type { TeamConfig } from '../core/teams.js';
import type { LlmConfig } from '../interact/llm-config.js';
import type { AgentJob, AgentJobs, Page } from './jobs.js';

/** Rounds of "read more pages" an agent may take before it must answer. */
const MAX_AGENT_ROUNDS = 4;
/** Pages an agent reads in all. */
const MAX_AGENT_PAGES = 20;
/** Characters of one page given to the model. */
const PAGE_CHARS = 12_000;

export type AgentBody = Omit<AgentRequestParsed, 'origin' | 'integration' | 'webhook'>;
export type ExtractBody = Omit<ExtractRequestParsed, 'origin' | 'integration' | 'webhook'>;

const pagesText = (pages: Page[]) =>
  pages.map((p) => `<page url="${p.url}">\n${p.markdown.slice(0, PAGE_CHARS)}\n</page>`).join('\n\n') || '(no pages read yet)';
const schemaText = (schema: unknown) =>
  schema ? `The "data" member must be a JSON value that follows this JSON schema:\n${JSON.stringify(schema)}` : 'The "data" member is a JSON object with the facts asked for.';

export async function runAgent(agents: AgentJobs, job: AgentJob, team: TeamConfig, llm: LlmConfig, body: AgentBody): Promise<void> {
  const cap = body.maxCredits ?? Number.POSITIVE_INFINITY;
  const allowed = new Set(body.urls ?? []);
  const pages: Page[] = [];
  const notes: string[] = [];
  const read = async (urls: string[]) => {
    for (const url of urls) {
      if (pages.length >= MAX_AGENT_PAGES || pages.some((p) => p.url === url)) continue;
      if (body.strictConstrainToURLs && !allowed.has(url)) {
        notes.push(`not read (strictConstrainToURLs): ${url}`);
        continue;
      }
      agents.ensure(job, team, cap, pageCredits(), `reading ${url}`);
      try {
        pages.push(await agents.readPage(job, team, url, {}));
      } catch (err) {
        if (job.abort.signal.aborted) throw err;
        pages.push({ url, markdown: `(could not be read: ${err instanceof Error ? err.message : String(err)})` });
      }
      agents.spend(job, team, cap, pageCredits(), 'agent page');
    }
  };
  await read(body.urls ?? []);
  const system = `You are a web research agent. Answer with ONE JSON object and nothing else, either
{"data": <the answer>} when the pages below are enough, or {"read": ["https://..."]} to read more pages first (absolute http(s) URLs).
${schemaText(body.schema)}${body.strictConstrainToURLs ? `\nOnly these URLs may be read: ${[...allowed].join(', ')}` : ''}`;
  for (let round = 0; ; round++) {
    const last = round >= MAX_AGENT_ROUNDS;
    const answer = await agents.callModel(job, team, llm, cap, [
      { role: 'system', content: system },
      { role: 'user', content: `Task: ${body.prompt}\n\nPages read so far:\n${pagesText(pages)}${notes.length ? `\n\nNotes:\n${notes.join('\n')}` : ''}${last ? '\n\nAnswer now with {"data": ...}.' : ''}` },
    ]);
    if ('data' in answer) {
      job.data = answer.data;
      job.sources = pages.map((p) => p.url);
      return;
    }
    const more = Array.isArray(answer.read) ? answer.read.filter((u): u is string => typeof u === 'string' && /^https?:\/\//i.test(u)) : [];
    if (last || more.length === 0) throw new Error('The model gave no answer (neither "data" nor pages to read)');
    await read(more);
  }
}

export async function runExtract(agents: AgentJobs, job: AgentJob, team: TeamConfig, llm: LlmConfig, body: ExtractBody): Promise<void> {
  const perPage = pageCredits(body.scrapeOptions?.formats);
  const pages: Page[] = [];
  const failed: string[] = [];
  for (const url of body.urls) {
    try {
      pages.push(await agents.readPage(job, team, url, body.scrapeOptions ?? {}));
      agents.spend(job, team, Number.POSITIVE_INFINITY, perPage, 'extract page');
    } catch (err) {
      if (job.abort.signal.aborted) throw err;
      failed.push(url);
    }
  }
  if (pages.length === 0) throw new Error(`None of the URLs could be scraped: ${failed.join(', ')}`);
  const system = `${body.systemPrompt ? `${body.systemPrompt}\n\n` : ''}You extract structured data from web pages. Answer with ONE JSON object {"data": ...} and nothing else.
${schemaText(body.schema)} Use only facts found in the pages; use null for what they do not say.`;
  const answer = await agents.callModel(job, team, llm, Number.POSITIVE_INFINITY, [
    { role: 'system', content: system },
    { role: 'user', content: `${body.prompt ? `Request: ${body.prompt}\n\n` : ''}Pages:\n${pagesText(pages)}` },
  ]);
  job.data = 'data' in answer ? answer.data : answer;
  if (body.showSources) job.sources = pages.map((p) => p.url);
  const warnings = [
    ...(failed.length ? [`Could not scrape: ${failed.join(', ')}`] : []),
    ...(body.enableWebSearch ? ['enableWebSearch is not available on this service: only the given URLs were read'] : []),
  ];
  if (warnings.length) job.warning = warnings.join('; ');
}

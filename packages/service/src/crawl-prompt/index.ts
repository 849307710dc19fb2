// Crawl options from a natural-language prompt (reference 4.5 `prompt`, 4.6).
export { proposeCrawlOptions, generateCrawlOptions, type ProposeInput } from './propose.js';
export { mergePromptOptions } from './merge.js';
export { readPromptRules, pathPattern, type RuleReading } from './rules.js';
export { validateModelOptions } from './model.js';
export { createParamsPreviewHandler, previewData, PREVIEW_DEFAULTS } from './params-preview.js';
export { llmConfigFromEnv, chat, chatJson, LlmError, type LlmConfig, type ChatMessage } from './llm.js';
export type { CrawlPromptOptions, CrawlProposal } from './types.js';

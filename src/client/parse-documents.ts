// Start a parseDocuments run, read its progress, wait for its result.
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { parseDocuments, ParseDocumentsProgress, ParseDocumentsResult } from '../workflows/parse-documents.js';
import { PARSE_DOCUMENTS_WORKFLOW_TYPE, parseProgressQuery } from '../workflows/definitions.js';
import { parseParseDocumentsInput, type ParseDocumentsConfig, type ParseDocumentsInput } from '../workflows/parse-documents-input.js';
import { OUTCOME, STAGE, TENANT } from '../search-attributes.js';
import { DEFAULT_TENANT, priorityOf } from '../shared/tenant.js';
import { DEFAULT_TASK_QUEUE } from './pipeline.js';
import { withSearchAttributeHint } from '../coordination/search-attribute-check.js';

export interface StartParseDocumentsOptions {
  taskQueue?: string;
  /** Default: `webdata-parse-<timestamp>`. */
  workflowId?: string;
}

export type ParseDocumentsHandle = WorkflowHandle<typeof parseDocuments>;

/** One line for the Temporal UI list. */
export function summarizeParse(config: ParseDocumentsConfig): string {
  const budget = config.budget ? ` · budget ${config.budget.credits}` : '';
  return `parse ${config.files.length} file${config.files.length === 1 ? '' : 's'}${budget}`;
}

/**
 * Validates the input (the workflow's own schema: a bad field fails here, naming the field and
 * the rule, before anything starts) and starts the run on the worker's task queue. The files are
 * read by the worker, so their paths must be valid there.
 */
export async function startParseDocuments(client: Client, input: ParseDocumentsInput, options: StartParseDocumentsOptions = {}): Promise<ParseDocumentsHandle> {
  const config = parseParseDocumentsInput(input);
  return withSearchAttributeHint(client, () => client.workflow.start<typeof parseDocuments>(PARSE_DOCUMENTS_WORKFLOW_TYPE, {
    taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
    workflowId: options.workflowId ?? `webdata-parse-${Date.now()}`,
    args: [input],
    staticSummary: summarizeParse(config),
    priority: priorityOf(config),
    typedSearchAttributes: [
      { key: TENANT, value: config.tenant ?? DEFAULT_TENANT },
      { key: STAGE, value: 'parse' },
      { key: OUTCOME, value: 'running' },
    ],
  }));
}

export async function getParseProgress(client: Client, workflowId: string): Promise<ParseDocumentsProgress> {
  return client.workflow.getHandle(workflowId).query(parseProgressQuery);
}

export async function getParseResult(client: Client, workflowId: string): Promise<ParseDocumentsResult> {
  return client.workflow.getHandle<typeof parseDocuments>(workflowId).result();
}

// `webdata run --agent-prompt/--agent-model/--agent-max-credits` fill the agent stage of the
// input (validated by the workflow's own schema); a model the service does not have is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validatedInput } from '../../src/cli/run-options.js';

test('agent flags become input.agent; a bad model or credit count is a usage error naming it', () => {
  const input = validatedInput('https://example.com/', { 'agent-prompt': 'list the prices', 'agent-model': 'spark-1-mini', 'agent-max-credits': '40' });
  assert.deepEqual({ prompt: input.agent?.prompt, model: input.agent?.model, maxCredits: input.agent?.maxCredits }, { prompt: 'list the prices', model: 'spark-1-mini', maxCredits: 40 });
  assert.throws(() => validatedInput('https://example.com/', { 'agent-prompt': 'p', 'agent-model': 'gpt-9' }), /agent\.model/);
  assert.throws(() => validatedInput('https://example.com/', { 'agent-prompt': 'p', 'agent-max-credits': 'many' }), /--agent-max-credits: must be a whole number/);
});

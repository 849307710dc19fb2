// Agent `model` (hosted service, 2026): one of its model names, refused otherwise naming the field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AGENT_MODELS, agentRequestSchema, summarizeIssues } from 'webdata-contract';

test('agent model: the hosted service names pass, anything else is refused naming model', () => {
  for (const model of AGENT_MODELS) assert.equal(agentRequestSchema.safeParse({ prompt: 'p', model }).success, true, model);
  const bad = agentRequestSchema.safeParse({ prompt: 'p', model: 'gpt-9' });
  assert.equal(bad.success, false);
  assert.match(summarizeIssues(bad.error!), /^model: /);
});

// The configuration reference (src/config/reference.ts) against the code and the docs: every
// WEBDATA_* and TEMPORAL_* name the shipped code holds is listed (or is envconfig's, or a
// constant named below), every listed one is still in the code, and docs/configuration.md is
// what the reference writes. Test-only variables are out by rule: test/, scripts/ and bench/
// are not scanned.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { INTERNAL, knownVariable, SETTINGS } from '../../src/config/reference.js';
import { CONFIGURATION_PAGE, configurationPage } from '../../scripts/docs-reference.js';

/** Where the shipped code is: what a user's process runs. */
const SCANNED = ['src', 'bin', ...readdirSync('packages').map((p) => join('packages', p, 'src'))];
/** Constants whose names look like variables; no process reads them from the environment. */
const NOT_VARIABLES = ['TEMPORAL_CLI_MODULE', 'TEMPORAL_CLI_VERSION', 'WEBDATA_HISTOGRAM_BUCKETS'];
/** The reference itself: it names the variables, it reads none. */
const REFERENCE = join('src', 'config', 'reference.ts');

const NAME = /\b(?:WEBDATA|TEMPORAL)_[A-Z0-9_]*[A-Z0-9](?:_\*)?/g;

/** The WEBDATA_* and TEMPORAL_* names a text holds (`TEMPORAL_TLS_*` as the prefix it is). */
function variableNames(text: string): string[] {
  return [...new Set([...text.matchAll(NAME)].map((m) => m[0]))];
}

function files(dir: string): string[] {
  let out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out = out.concat(files(full));
    else if (/\.(ts|js|mjs|cjs|py)$/.test(name)) out.push(full);
  }
  return out;
}

function namesInCode(): Map<string, string> {
  const where = new Map<string, string>();
  for (const file of SCANNED.flatMap((d) => { try { return files(d); } catch { return []; } }).filter((f) => f !== REFERENCE)) {
    for (const name of variableNames(readFileSync(file, 'utf8'))) if (!where.has(name)) where.set(name, file);
  }
  return where;
}

test('the scan finds a variable however the code reads it', () => {
  const code = "process.env.WEBDATA_NEW_THING; env['TEMPORAL_OTHER']; const E = 'WEBDATA_THIRD'; // TEMPORAL_TLS_* and WEBDATA_";
  assert.deepEqual(variableNames(code), ['WEBDATA_NEW_THING', 'TEMPORAL_OTHER', 'WEBDATA_THIRD', 'TEMPORAL_TLS_*']);
  assert.equal(knownVariable('WEBDATA_NEW_THING'), false);
  assert.equal(knownVariable('TEMPORAL_TLS_CLIENT_CERT_PATH'), true);
  assert.equal(knownVariable('WEBDATA_API_TIMEOUT_MS'), true);
});

test('every WEBDATA_* and TEMPORAL_* variable the shipped code names is in src/config/reference.ts', () => {
  const missing = [...namesInCode()].filter(([name]) => !NOT_VARIABLES.includes(name) && !knownVariable(name.replace(/\*$/, 'X')));
  assert.deepEqual(missing.map(([name, file]) => `${name} (${file})`), [], 'add each to SETTINGS (or INTERNAL) in src/config/reference.ts with its default and meaning, then run npm run docs:reference');
});

test('every variable the reference lists is still named by the code', () => {
  const inCode = namesInCode();
  const stale = [...SETTINGS, ...INTERNAL].map((v) => v.name).filter((name) => !inCode.has(name));
  assert.deepEqual(stale, [], 'remove these from src/config/reference.ts (no code reads them), then run npm run docs:reference');
});

test(`${CONFIGURATION_PAGE} is what src/config/reference.ts writes`, () => {
  assert.equal(readFileSync(CONFIGURATION_PAGE, 'utf8'), configurationPage(), `${CONFIGURATION_PAGE} is stale: run npm run docs:reference`);
});

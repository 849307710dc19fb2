// Writes docs/configuration.md and the README's CLI command list from their sources
// (scripts/docs-reference.ts). Run: npm run docs:reference
import { readFileSync, writeFileSync } from 'node:fs';
import { CONFIGURATION_PAGE, configurationPage, readmeWithCliList } from './docs-reference.js';

writeFileSync(CONFIGURATION_PAGE, configurationPage());
writeFileSync('README.md', readmeWithCliList(readFileSync('README.md', 'utf8')));
console.log(`wrote ${CONFIGURATION_PAGE} and the README's command list`);

#!/usr/bin/env node
// `webdata`: the command line of webdata-temporal (compiled JS; no TypeScript at run time).
const { main } = await import('../lib/cli/main.js');
process.exitCode = await main(process.argv.slice(2));

#!/usr/bin/env node
// `webdata-service`: the local service of the v2 API (compiled JS; no TypeScript at run time).
await import('../lib/bin.js');

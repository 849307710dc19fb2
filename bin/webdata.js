#!/usr/bin/env node
// Launcher: registers tsx so the TypeScript sources run as they are, then runs the CLI.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));

#!/usr/bin/env node
// Launcher: registers tsx so the TypeScript sources run as they are, then starts the service.
import { register } from 'tsx/esm/api';

register();
await import('../src/bin.ts');

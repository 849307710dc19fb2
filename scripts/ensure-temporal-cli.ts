// Makes sure a Temporal CLI is available (building it once into the cache) and prints its path.
import { resolveTemporalCli } from '../src/devserver/index.js';

const cli = await resolveTemporalCli({ log: (line) => console.log(line) });
console.log(`temporal CLI: ${cli.path ?? '(SDK download at first use)'} [${cli.source}]`);

// `webdata doctor`: checks the deployment the environment describes (the same TEMPORAL_* and
// WEBDATA_* variables the worker and the other commands read), one line per check, each with
// what to do when it is not ok. Exit 1 when a check fails.
import { parseArgs } from 'node:util';
import { UsageError } from '../errors.js';
import { addressPolicyLine } from '../doctor/address-policy.js';
import { formatCheck, guarded, notChecked, type CheckResult } from '../doctor/check.js';
import { checkService, checkWorkerSettings } from '../doctor/service.js';
import { checkStore } from '../doctor/store.js';
import { checkFairness, checkNamespaceSearchAttributes, checkTemporal } from '../doctor/temporal.js';

export async function runChecks(env: NodeJS.ProcessEnv, print: (line: string) => void): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const report = (r: CheckResult) => {
    results.push(r);
    print(formatCheck(r));
  };
  const temporal = await checkTemporal(env);
  report(temporal.result);
  const conn = temporal.conn;
  try {
    if (conn) {
      report(await guarded('search attributes', () => checkNamespaceSearchAttributes(conn.client, conn.namespace)));
      report(checkFairness(temporal.serverVersion));
    } else {
      report(notChecked('search attributes', 'Temporal did not answer (see above)'));
      report(notChecked('fairness', 'Temporal did not answer (see above)'));
    }
  } finally {
    await conn?.close();
  }
  report(checkWorkerSettings(env));
  report(await guarded('service', () => checkService(env)));
  report(await guarded('store', () => checkStore(env)));
  report(addressPolicyLine(env));
  return results;
}

export async function doctorCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { positionals } = parseArgs({ args: argv, allowPositionals: true, options: {} });
  if (positionals.length > 0) throw new UsageError(`doctor takes no arguments, got "${positionals.join(' ')}": it checks the deployment the TEMPORAL_* and WEBDATA_* variables describe`);
  const results = await runChecks(env, (line) => console.log(line));
  const count = (s: CheckResult['status']) => results.filter((r) => r.status === s).length;
  const failed = count('fail');
  console.log(`${count('ok')} ok, ${count('warn')} warn, ${failed} fail`);
  return failed > 0 ? 1 : 0;
}

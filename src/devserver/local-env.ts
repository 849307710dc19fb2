// TestWorkflowEnvironment.createLocal with room for a busy machine: the SDK's core gives the
// dev server 5 s to answer (a fixed value in sdk-core's ephemeral_server) and kills it when it
// does not; on a loaded machine the server can take longer, so a start that timed out is made
// again (a fresh process, a fresh HTTP port), a few times.
import { TestWorkflowEnvironment, type LocalTestWorkflowEnvironmentOptions } from '@temporalio/testing';
import { freeLoopbackPort } from './free-port.js';

const ATTEMPTS = 4;

/** `httpPort: "free"` adds `--http-port` with a port picked again for each attempt. */
export async function createLocalTestEnvironment(
  options: LocalTestWorkflowEnvironmentOptions & { httpPort?: 'free' },
): Promise<TestWorkflowEnvironment> {
  for (let attempt = 1; ; attempt++) {
    const server = options.server ?? {};
    const extraArgs = [...(server.extraArgs ?? []), ...(options.httpPort === 'free' ? ['--http-port', String(await freeLoopbackPort())] : [])];
    try {
      return await TestWorkflowEnvironment.createLocal({ ...options, server: { ...server, extraArgs } });
    } catch (err) {
      if (attempt >= ATTEMPTS || !/did not start within/.test(String((err as Error)?.message ?? err))) throw err;
    }
  }
}

// Temporal client for CLI commands, from the environment (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
// TLS/API key per @temporalio/envconfig conventions).
import { Client, Connection } from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';

export async function connectClient(env: NodeJS.ProcessEnv = process.env): Promise<{ client: Client; close(): Promise<void> }> {
  const config = loadClientConnectConfig({
    overrideEnvVars: Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined)),
  });
  const { address, tls, apiKey, metadata } = config.connectionOptions;
  const connection = await Connection.connect({ address, tls, apiKey, metadata });
  return { client: new Client({ connection, namespace: config.namespace ?? 'default' }), close: () => connection.close() };
}

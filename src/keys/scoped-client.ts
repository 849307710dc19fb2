// The client activities hold (deps.client) when keys are named: each property read goes to the
// client of the activity being run (its key name's, set by the activity interceptor in an
// AsyncLocalStorage scope), else to the worker's default client. So every endpoint, the team
// governor (teamId), budgets and credit reads follow the run's team with no change to the activities.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { WebDataClient } from 'webdata-client';

export class ClientScope {
  private readonly storage = new AsyncLocalStorage<WebDataClient>();

  /** Runs `fn` with `client` as the client of every call made within it. */
  run<T>(client: WebDataClient, fn: () => T): T {
    return this.storage.run(client, fn);
  }

  /** A WebDataClient that delegates each call to the scope's client, `fallback` outside any scope. */
  delegate(fallback: WebDataClient): WebDataClient {
    const storage = this.storage;
    return new Proxy(fallback, {
      get(target, prop) {
        const client = storage.getStore() ?? target;
        const value: unknown = Reflect.get(client, prop, client);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(client) : value;
      },
    });
  }
}

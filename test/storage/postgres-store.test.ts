import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { createStore, PostgresStore } from '../../packages/storage/src/index.js';
import { makeDocument } from './fixtures/documents.js';
import { testServer, type TestServer } from './postgres-server.js';
import { runStoreContract } from './store-contract.js';

let server: TestServer | undefined;
const schemas: string[] = [];

async function dropSchemas(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** A fresh schema per fixture: tests never see each other's (or earlier runs') data. */
async function fixtureSpec(): Promise<{ spec: string; schema: string }> {
  server ??= await testServer();
  const schema = `webdata_test_${randomBytes(5).toString('hex')}`;
  schemas.push(schema);
  const url = new URL(server.url);
  url.searchParams.set('schema', schema);
  return { spec: url.toString(), schema };
}

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('postgres-store', () => {
  before(async () => {
    server ??= await testServer();
  });

  after(async () => {
    if (!server) return;
    await dropSchemas(server.url);
    await server.release();
  });

  runStoreContract('PostgresStore', async () => {
    const { spec } = await fixtureSpec();
    const store = createStore(spec);
    assert.ok(store instanceof PostgresStore);
    return { store, spec, cleanup: () => store.close() };
  });

  describe('PostgresStore on a server', () => {
    it('creates its schema on first use, concurrently from several stores', async () => {
      const { spec, schema } = await fixtureSpec();
      const stores = [0, 1, 2, 3].map(() => createStore(spec));
      try {
        const added = await Promise.all(stores.map((s, k) => s.appendDocuments('run', 'job', [makeDocument(k), makeDocument(0)])));
        assert.equal(added.reduce((a, b) => a + b, 0), 4);
        const client = new pg.Client({ connectionString: server!.url });
        await client.connect();
        try {
          const res = await client.query<{ table_name: string }>(`SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1`, [schema]);
          assert.deepEqual(
            res.rows.map((r) => r.table_name),
            ['documents', 'failures', 'links', 'runs'],
          );
        } finally {
          await client.end();
        }
      } finally {
        await Promise.all(stores.map((s) => s.close()));
      }
    });

    it('survives its server ending a connection in the middle of a transaction (a PostgreSQL restart): the call fails, the process lives, the next call works', async () => {
      const { spec, schema } = await fixtureSpec();
      const store = createStore(spec);
      const holder = new pg.Client({ connectionString: server!.url });
      await holder.connect();
      try {
        await store.count('warm-up');
        // The store's transaction waits for the run's lock while its connection is checked out.
        await holder.query('SELECT pg_advisory_lock(hashtext($1), hashtext($2))', [schema, 'locked-run']);
        const append = store.appendDocuments('locked-run', 'job', [makeDocument(1)]);
        append.catch(() => undefined);
        let terminated = 0;
        for (let i = 0; i < 200 && terminated === 0; i++) {
          const res = await holder.query<{ ok: boolean }>(
            `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = 'webdata-temporal' AND wait_event_type = 'Lock' AND query LIKE '%pg_advisory_xact_lock%'`,
          );
          terminated = res.rows.filter((r) => r.ok).length;
          if (terminated === 0) await new Promise((r) => setTimeout(r, 50));
        }
        assert.equal(terminated, 1, 'the waiting transaction was not found');
        await assert.rejects(append);
        await holder.query('SELECT pg_advisory_unlock(hashtext($1), hashtext($2))', [schema, 'locked-run']);
        assert.equal(await store.appendDocuments('locked-run', 'job', [makeDocument(1)]), 1);
      } finally {
        await holder.end();
        await store.close();
      }
    });

    it('keeps schemas apart', async () => {
      const a = createStore((await fixtureSpec()).spec);
      const b = createStore((await fixtureSpec()).spec);
      try {
        await a.appendDocuments('shared-run', 'job', [makeDocument(1)]);
        assert.deepEqual(await b.count('shared-run'), { documents: 0, failures: 0, links: 0 });
        assert.equal(await b.appendDocuments('shared-run', 'job', [makeDocument(1)]), 1);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });

    it('reports an unreachable server with its address and without the password', async () => {
      const store = new PostgresStore({ connectionString: 'postgres://webdata:hunter2@127.0.0.1:1/nowhere', schema: 'unused' });
      try {
        await assert.rejects(
          () => store.appendDocuments('run', 'job', [makeDocument(1)]),
          (err: Error) => {
            assert.match(err.message, /PostgresStore cannot connect to postgres:\/\/webdata:\*\*\*@127\.0\.0\.1:1\/nowhere: .*ECONNREFUSED/);
            assert.ok(!err.message.includes('hunter2'));
            return true;
          },
        );
      } finally {
        await store.close();
      }
    });

    it('is closed by close(): later calls fail clearly', async () => {
      const store = createStore((await fixtureSpec()).spec);
      await store.close();
      await store.close(); // idempotent
      await assert.rejects(() => store.count('run'), /PostgresStore is closed/);
    });
  });
});

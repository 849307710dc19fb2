// The DocumentStore contract, run against every store implementation.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createStore, type DocumentStore, type StoredDocument } from '../../packages/storage/src/index.js';
import { makeDocument, range, runWorker, urlOf } from './fixtures/documents.js';

export interface StoreFixture {
  store: DocumentStore;
  /** createStore spec of the same data, for more writers (other instances, child processes). */
  spec: string;
  cleanup(): Promise<void>;
}

const newRun = () => `run-${randomUUID()}`;

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

const seqs = (docs: StoredDocument[]) => docs.map((d) => d.metadata.seq as number);

/** Forces a full GC so heap figures measure what is live, not garbage. */
function gcFunction(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

export function runStoreContract(name: string, makeStore: () => Promise<StoreFixture>): void {
  describe(`${name}: DocumentStore contract`, () => {
    let fx: StoreFixture;
    let store: DocumentStore;
    before(async () => {
      fx = await makeStore();
      store = fx.store;
    });
    after(async () => {
      await fx?.cleanup();
    });

    it('reads documents back in insertion order, whole, with jobId and storedAt', async () => {
      const runId = newRun();
      assert.equal(await store.appendDocuments(runId, 'job-b', [makeDocument(5), makeDocument(1)]), 2);
      assert.equal(await store.appendDocuments(runId, 'job-a', [makeDocument(3), { ...makeDocument(2), summary: 'extra field', json: { a: [1, 2] } }]), 2);
      const docs = await collect(store.readDocuments(runId));
      assert.deepEqual(seqs(docs), [5, 1, 3, 2]);
      assert.deepEqual(
        docs.map((d) => d.jobId),
        ['job-b', 'job-b', 'job-a', 'job-a'],
      );
      const expected = makeDocument(2);
      assert.equal(docs[3].markdown, expected.markdown);
      assert.deepEqual(docs[3].links, expected.links);
      assert.equal(docs[3].summary, 'extra field');
      assert.deepEqual(docs[3].json, { a: [1, 2] });
      for (const d of docs) assert.ok(!Number.isNaN(Date.parse(d.storedAt)), d.storedAt);
      assert.deepEqual(seqs(await collect(store.readDocuments(runId, { jobId: 'job-a' }))), [3, 2]);
      assert.deepEqual(await collect(store.readDocuments(runId, { jobId: 'nope' })), []);
    });

    it('keeps the json and summary answers of a page as given (read, looked up, paged), absent when not given', async () => {
      const runId = newRun();
      // Values a lossy store would change: key order, -0/large numbers, nulls, nested arrays, \u0000.
      const json = { z: 1, a: { list: [null, true, 1.5e300, 'x\u0000y'], empty: {} }, 'k e y': 'ü 😀' };
      const summary = 'A page about plans.\nTwo lines, "quoted".';
      await store.appendDocuments(runId, 'job-s', [{ ...makeDocument(1), json, summary }, makeDocument(2)]);
      const [withAnswers, plain] = await collect(store.readDocuments(runId));
      assert.deepEqual(withAnswers.json, json);
      assert.deepEqual(Object.keys(withAnswers.json as object), ['z', 'a', 'k e y'], 'key order kept');
      assert.equal(withAnswers.summary, summary);
      assert.ok(!('json' in plain) && !('summary' in plain), 'no empty answers invented');
      const looked = await store.getDocument(runId, 'job-s', withAnswers.url);
      assert.deepEqual([looked?.json, looked?.summary], [json, summary]);
      const page = await store.pageDocuments(runId, { limit: 1 });
      assert.deepEqual(page.items[0].json, json);
    });

    it('keeps a given storedAt and ignores a jobId inside the document', async () => {
      const runId = newRun();
      await store.appendDocuments(runId, 'job', [{ ...makeDocument(1), storedAt: '2024-01-02T03:04:05.678Z', jobId: 'intruder' }]);
      const [doc] = await collect(store.readDocuments(runId));
      assert.equal(doc.storedAt, '2024-01-02T03:04:05.678Z');
      assert.equal(doc.jobId, 'job');
    });

    it('appends idempotently: same batch, overlapping batches, repeats within a batch', async () => {
      const runId = newRun();
      const batch = range(0, 10).map((i) => makeDocument(i));
      assert.equal(await store.appendDocuments(runId, 'job', batch), 10);
      assert.equal(await store.appendDocuments(runId, 'job', batch), 0);
      assert.equal(await store.appendDocuments(runId, 'job', range(5, 15).map((i) => makeDocument(i))), 5);
      assert.equal(await store.appendDocuments(runId, 'job', [makeDocument(20), makeDocument(20), makeDocument(3), makeDocument(21)]), 2);
      // The same URL under another job is another document.
      assert.equal(await store.appendDocuments(runId, 'other-job', [makeDocument(1)]), 1);
      assert.equal(await store.appendDocuments(runId, 'job', []), 0);
      const docs = await collect(store.readDocuments(runId));
      assert.deepEqual(seqs(docs), [...range(0, 15), 20, 21, 1]);
      assert.deepEqual(await store.count(runId), { documents: 18, failures: 0, links: 0 });
      // A re-append does not replace the stored version.
      assert.equal(await store.appendDocuments(runId, 'job', [{ ...makeDocument(0), markdown: 'changed' }]), 0);
      assert.equal((await collect(store.readDocuments(runId)))[0].markdown, makeDocument(0).markdown);
    });

    it('sees keys written by another instance of the store (a new process after a crash)', async () => {
      const runId = newRun();
      await store.appendDocuments(runId, 'job', range(0, 50).map((i) => makeDocument(i)));
      const second = createStore(fx.spec);
      try {
        assert.equal(await second.appendDocuments(runId, 'job', range(0, 60).map((i) => makeDocument(i))), 10);
        assert.equal(await store.appendDocuments(runId, 'job', range(55, 65).map((i) => makeDocument(i))), 5);
        assert.deepEqual(await second.count(runId), { documents: 65, failures: 0, links: 0 });
      } finally {
        await second.close();
      }
      assert.deepEqual(seqs(await collect(store.readDocuments(runId))), range(0, 65));
    });

    it('looks a document up by run + job + url; undefined for an unknown run, job or url', async () => {
      const runId = newRun();
      await store.appendDocuments(runId, 'job-a', range(0, 20).map((i) => makeDocument(i)));
      await store.appendDocuments(runId, 'job-b', [{ ...makeDocument(3), markdown: 'job b version' }]);
      const docs = await collect(store.readDocuments(runId));
      assert.deepEqual(await store.getDocument(runId, 'job-a', urlOf(0)), docs[0]);
      assert.deepEqual(await store.getDocument(runId, 'job-a', urlOf(19)), docs[19]);
      assert.deepEqual(await store.getDocument(runId, 'job-b', urlOf(3)), docs[20]);
      assert.equal((await store.getDocument(runId, 'job-a', urlOf(3)))?.markdown, makeDocument(3).markdown);
      // A re-append does not replace what a lookup returns.
      assert.equal(await store.appendDocuments(runId, 'job-a', [{ ...makeDocument(7), markdown: 'changed' }]), 0);
      assert.deepEqual(await store.getDocument(runId, 'job-a', urlOf(7)), docs[7]);
      assert.equal(await store.getDocument(newRun(), 'job-a', urlOf(0)), undefined);
      assert.equal(await store.getDocument(runId, 'job-c', urlOf(0)), undefined);
      assert.equal(await store.getDocument(runId, 'job-b', urlOf(4)), undefined);
      assert.equal(await store.getDocument(runId, 'job-a', urlOf(20)), undefined);
      assert.equal(await store.getDocument(runId, 'job-a', `${urlOf(1)}/`), undefined);
      // Documents appended after a lookup are found by the next one.
      await store.appendDocuments(runId, 'job-a', [makeDocument(20)]);
      assert.equal((await store.getDocument(runId, 'job-a', urlOf(20)))?.metadata.seq, 20);
      // Failures and links are not documents.
      await store.appendFailures(runId, 'job-a', [{ url: urlOf(50), error: 'x' }]);
      await store.appendLinks(runId, 'map', [{ url: urlOf(51) }]);
      assert.equal(await store.getDocument(runId, 'job-a', urlOf(50)), undefined);
      assert.equal(await store.getDocument(runId, 'map', urlOf(51)), undefined);
    });

    it('rejects a lookup with a bad run, job or url as a TypeError naming it', async () => {
      const runId = newRun();
      await assert.rejects(() => store.getDocument('', 'job', urlOf(1)), (err: Error) => err instanceof TypeError && /runId/.test(err.message));
      await assert.rejects(() => store.getDocument(runId, '', urlOf(1)), (err: Error) => err instanceof TypeError && /jobId/.test(err.message));
      await assert.rejects(() => store.getDocument(runId, 'job', ''), (err: Error) => err instanceof TypeError && /url/.test(err.message));
      await assert.rejects(() => store.getDocument(runId, 'job', undefined as never), (err: Error) => err instanceof TypeError && /url/.test(err.message));
      await assert.rejects(() => store.getDocument(42 as never, 'job', urlOf(1)), (err: Error) => err instanceof TypeError && /runId/.test(err.message));
    });

    it('looks up documents written by another instance of the store', async () => {
      const runId = newRun();
      await store.appendDocuments(runId, 'job', range(0, 10).map((i) => makeDocument(i)));
      assert.equal(await store.getDocument(runId, 'job', urlOf(15)), undefined); // known to this instance before the other writes
      const second = createStore(fx.spec);
      try {
        assert.equal((await second.getDocument(runId, 'job', urlOf(4)))?.metadata.seq, 4);
        assert.equal(await second.appendDocuments(runId, 'job', range(5, 20).map((i) => makeDocument(i))), 10);
        assert.equal(await second.appendDocuments(runId, 'other-job', [makeDocument(1)]), 1);
      } finally {
        await second.close();
      }
      const docs = await collect(store.readDocuments(runId));
      assert.deepEqual(await store.getDocument(runId, 'job', urlOf(15)), docs[15]);
      assert.deepEqual(await store.getDocument(runId, 'job', urlOf(19)), docs[19]);
      assert.deepEqual(await store.getDocument(runId, 'other-job', urlOf(1)), docs[20]);
      assert.equal(await store.getDocument(runId, 'other-job', urlOf(2)), undefined);
    });

    it('stores failures idempotently by job + url, readable and counted per job', async () => {
      const runId = newRun();
      const failures = [
        { url: urlOf(1), error: 'timeout', code: 'SCRAPE_TIMEOUT', timestamp: '2024-05-01T00:00:00.000Z' },
        { url: urlOf(2), error: 'HTTP 500' },
      ];
      assert.equal(await store.appendFailures(runId, 'job-1', failures), 2);
      assert.equal(await store.appendFailures(runId, 'job-1', failures), 0);
      assert.equal(await store.appendFailures(runId, 'job-2', [failures[0]]), 1);
      const read = await collect(store.readFailures(runId));
      assert.equal(read.length, 3);
      assert.deepEqual(read[0], { url: urlOf(1), jobId: 'job-1', error: 'timeout', code: 'SCRAPE_TIMEOUT', timestamp: '2024-05-01T00:00:00.000Z' });
      assert.equal(read[1].code, undefined);
      assert.ok(!Number.isNaN(Date.parse(read[1].timestamp)));
      assert.deepEqual(await collect(store.readFailures(runId, { jobId: 'job-2' })), [{ ...read[0], jobId: 'job-2' }]);
      assert.deepEqual(await store.count(runId, { jobId: 'job-1' }), { documents: 0, failures: 2, links: 0 });
      assert.deepEqual(await store.count(runId), { documents: 0, failures: 3, links: 0 });
      // APIs send null for unknown fields: treated as absent, not as the text "null".
      await store.appendFailures(runId, 'job-3', [{ url: urlOf(3), error: 'x', code: null, timestamp: null } as never]);
      await store.appendLinks(runId, 'map', [{ url: urlOf(3), title: null, description: null } as never]);
      const [nulls] = await collect(store.readFailures(runId, { jobId: 'job-3' }));
      assert.equal(nulls.code, undefined);
      assert.ok(!Number.isNaN(Date.parse(nulls.timestamp)));
      assert.deepEqual(await collect(store.readLinks(runId, 'map')), [{ url: urlOf(3) }]);
    });

    it('keeps named link lists, idempotent per list, streamed in order', async () => {
      const runId = newRun();
      const links = range(0, 30).map((i) => ({ url: urlOf(i), title: `Page ${i}`, ...(i % 2 ? { description: `About ${i}` } : {}) }));
      assert.equal(await store.appendLinks(runId, 'map', links.slice(0, 20)), 20);
      assert.equal(await store.appendLinks(runId, 'map', links.slice(10, 30)), 10);
      assert.equal(await store.appendLinks(runId, 'selected', links.slice(0, 3)), 3);
      assert.equal(await store.appendLinks(runId, 'map', [{ url: urlOf(0), title: 'changed' }]), 0);
      assert.deepEqual(await collect(store.readLinks(runId, 'map')), links);
      assert.deepEqual(await collect(store.readLinks(runId, 'selected')), links.slice(0, 3));
      assert.deepEqual(await collect(store.readLinks(runId, 'missing')), []);
      assert.deepEqual(await store.count(runId), { documents: 0, failures: 0, links: 33 });
      assert.deepEqual(await store.count(runId, { list: 'map' }), { documents: 0, failures: 0, links: 30 });
      assert.deepEqual(await store.count(runId, { list: 'missing' }), { documents: 0, failures: 0, links: 0 });
    });

    it('counts per run and per job, zeros for unknown runs and jobs', async () => {
      const runId = newRun();
      await store.appendDocuments(runId, 'crawl-1', range(0, 7).map((i) => makeDocument(i)));
      await store.appendDocuments(runId, 'batch-1', range(5, 9).map((i) => ({ ...makeDocument(i), kind: 'batch' })));
      await store.appendFailures(runId, 'batch-1', [{ url: urlOf(99), error: 'blocked' }]);
      await store.appendLinks(runId, 'map', [{ url: urlOf(1) }]);
      assert.deepEqual(await store.count(runId), { documents: 11, failures: 1, links: 1 });
      assert.deepEqual(await store.count(runId, { jobId: 'crawl-1' }), { documents: 7, failures: 0, links: 1 });
      assert.deepEqual(await store.count(runId, { jobId: 'batch-1' }), { documents: 4, failures: 1, links: 1 });
      assert.deepEqual(await store.count(runId, { jobId: 'unknown' }), { documents: 0, failures: 0, links: 1 });
      assert.deepEqual(await store.count(newRun()), { documents: 0, failures: 0, links: 0 });
    });

    it('lists runs with counts and last update, most recent first', async () => {
      const first = newRun();
      const second = newRun();
      await store.appendDocuments(first, 'job', [makeDocument(1), makeDocument(2)]);
      await new Promise((r) => setTimeout(r, 20));
      await store.appendFailures(second, 'job', [{ url: urlOf(1), error: 'x' }]);
      await store.appendLinks(second, 'map', [{ url: urlOf(1) }, { url: urlOf(2) }, { url: urlOf(3) }]);
      const runs = await store.listRuns();
      const a = runs.find((r) => r.runId === first);
      const b = runs.find((r) => r.runId === second);
      assert.ok(a && b, 'both runs listed');
      assert.deepEqual({ ...a, updatedAt: undefined }, { runId: first, documents: 2, failures: 0, links: 0, updatedAt: undefined });
      assert.deepEqual({ ...b, updatedAt: undefined }, { runId: second, documents: 0, failures: 1, links: 3, updatedAt: undefined });
      assert.ok(Date.parse(b.updatedAt) >= Date.parse(a.updatedAt));
      assert.ok(runs.indexOf(b) < runs.indexOf(a), 'most recently updated first');
      for (let i = 1; i < runs.length; i++) assert.ok(runs[i - 1].updatedAt >= runs[i].updatedAt);
    });

    it('deletes a run entirely; the run id can be reused afterwards', async () => {
      const runId = newRun();
      const keep = newRun();
      await store.appendDocuments(runId, 'job', range(0, 5).map((i) => makeDocument(i)));
      await store.appendFailures(runId, 'job', [{ url: urlOf(9), error: 'x' }]);
      await store.appendLinks(runId, 'map', [{ url: urlOf(1) }]);
      await store.appendDocuments(keep, 'job', [makeDocument(1)]);
      // Deleted through another instance: this one must not trust what it remembers.
      const other = createStore(fx.spec);
      try {
        await other.deleteRun(runId);
      } finally {
        await other.close();
      }
      assert.deepEqual(await store.count(runId), { documents: 0, failures: 0, links: 0 });
      assert.deepEqual(await collect(store.readDocuments(runId)), []);
      assert.equal(await store.getDocument(runId, 'job', urlOf(1)), undefined);
      assert.deepEqual(await collect(store.readLinks(runId, 'map')), []);
      assert.ok(!(await store.listRuns()).some((r) => r.runId === runId));
      assert.deepEqual(await store.count(keep), { documents: 1, failures: 0, links: 0 });
      assert.equal(await store.appendDocuments(runId, 'job', range(3, 6).map((i) => makeDocument(i, 50))), 3);
      assert.deepEqual(seqs(await collect(store.readDocuments(runId))), [3, 4, 5]);
      assert.equal(await store.getDocument(runId, 'job', urlOf(1)), undefined);
      assert.equal((await store.getDocument(runId, 'job', urlOf(4)))?.markdown, makeDocument(4, 50).markdown);
      await store.deleteRun(newRun()); // unknown run: no error
    });

    it('pages documents with a resumable position', async () => {
      const runId = newRun();
      await store.appendDocuments(runId, 'a', range(0, 10).map((i) => makeDocument(i)));
      await store.appendDocuments(runId, 'b', range(10, 15).map((i) => makeDocument(i)));
      await store.appendDocuments(runId, 'a', range(15, 20).map((i) => makeDocument(i)));
      const pages: number[][] = [];
      let after: string | undefined;
      for (let guard = 0; guard < 20; guard++) {
        const page = await store.pageDocuments(runId, { jobId: 'a', limit: 4, after });
        if (page.items.length > 0) pages.push(seqs(page.items));
        if (page.next === null) break;
        after = page.next;
      }
      assert.deepEqual(pages.flat(), [...range(0, 10), ...range(15, 20)]);
      assert.deepEqual(pages[0], [0, 1, 2, 3]);
      // A position also resumes a streaming read (a retried activity after a heartbeat).
      const first = await store.pageDocuments(runId, { limit: 12 });
      assert.deepEqual(seqs(first.items), range(0, 12));
      assert.ok(first.next);
      assert.deepEqual(seqs(await collect(store.readDocuments(runId, { after: first.next }))), range(12, 20));
      const empty = await store.pageDocuments(newRun());
      assert.deepEqual(empty, { items: [], next: null });
      await assert.rejects(() => store.pageDocuments(runId, { after: 'not a position' }), TypeError);
      await assert.rejects(() => store.pageDocuments(runId, { limit: 0 }), RangeError);
    });

    it('rejects bad input with the field named', async () => {
      await assert.rejects(() => store.appendDocuments('', 'job', [makeDocument(1)]), /runId/);
      await assert.rejects(() => store.appendDocuments(newRun(), '', [makeDocument(1)]), /jobId/);
      await assert.rejects(() => store.appendDocuments(newRun(), 'job', [{ ...makeDocument(1), url: '' }]), /documents\[0\]\.url/);
      await assert.rejects(() => store.appendDocuments(newRun(), 'job', [{ ...makeDocument(1), storedAt: 'yesterday' }]), /storedAt/);
      await assert.rejects(() => store.appendFailures(newRun(), 'job', [{ url: urlOf(1) } as never]), /failures\[0\]\.error/);
      await assert.rejects(() => store.appendLinks(newRun(), '', [{ url: urlOf(1) }]), /list/);
    });

    it('round-trips unicode, control characters and large documents', async () => {
      const runId = newRun();
      const big = '<p>' + 'Größe 大きい 😀 '.repeat(200_000) + '</p>'; // ~3.4 MB of UTF-16 text
      const docs = [
        { url: 'https://site.test/ünïcödé/路径?q=😀', kind: 'scrape', markdown: 'línea 1\nline 2\r\n\ttab "quotes" \\ backslash \u2028 \u2029', metadata: { title: 'مرحبا بالعالم', lang: 'ar' } },
        { url: 'https://site.test/nul', kind: 'scrape', markdown: 'before\u0000after', html: '\u0001\u001f\u007f', metadata: { nested: { deep: [null, true, 1.5, 'x'] } } },
        { url: `https://site.test/long/${'a'.repeat(4000)}`, kind: 'batch', html: big, rawHtml: big, metadata: {} },
        { url: 'https://site.test/lone-\ud800', kind: 'scrape', markdown: 'lone \udc00 surrogates \ud800', metadata: {} },
      ];
      assert.equal(await store.appendDocuments(runId, 'job-ü', docs), 4);
      assert.equal(await store.appendDocuments(runId, 'job-ü', docs), 0);
      const read = await collect(store.readDocuments(runId));
      assert.equal(read.length, 4);
      for (let i = 0; i < docs.length; i++) {
        const { storedAt: _s, jobId, ...rest } = read[i];
        assert.equal(jobId, 'job-ü');
        assert.deepEqual(rest, docs[i]);
        assert.deepEqual(await store.getDocument(runId, 'job-ü', docs[i].url), read[i]);
      }
      assert.equal(await store.getDocument(runId, 'job-u', docs[0].url), undefined);
      assert.deepEqual(await store.count(runId, { jobId: 'job-ü' }), { documents: 4, failures: 0, links: 0 });
      await store.appendLinks(runId, 'карта', [{ url: docs[0].url, title: '标题 😀', description: 'a\u0000b' }]);
      assert.deepEqual(await collect(store.readLinks(runId, 'карта')), [{ url: docs[0].url, title: '标题 😀', description: 'a\u0000b' }]);
    });

    it('follows a run: yields what is stored, then each append as it arrives, and ends once the run ended', async () => {
      const runId = newRun();
      await store.appendDocuments(runId, 'job', [makeDocument(1), makeDocument(2)]);
      // The writer is another instance (another worker); the follower sees its appends.
      const writer = createStore(fx.spec);
      let ended = false;
      const seen: number[] = [];
      let appended: (() => void) | undefined;
      const followed = (async () => {
        for await (const doc of store.followDocuments(runId, { until: () => ended, intervalMs: 20 })) {
          seen.push(doc.metadata.seq as number);
          appended?.();
        }
      })();
      const arrived = (n: number) => new Promise<void>((resolve) => {
        appended = () => { if (seen.length >= n) resolve(); };
        appended();
      });
      await arrived(2);
      await writer.appendDocuments(runId, 'job', [makeDocument(3)]);
      await arrived(3); // yielded while the run goes on, not at its end
      await writer.appendDocuments(runId, 'other-job', [makeDocument(4), makeDocument(3)]);
      await writer.appendDocuments(runId, 'job', [makeDocument(5)]);
      ended = true;
      await followed;
      // Appended before the end is read before the follow ends, each once, in order.
      assert.deepEqual(seen, [1, 2, 3, 4, 3, 5]);
      await writer.close();
    });

    it('follows from a position and one job only; a signal ends the follow', async () => {
      const runId = newRun();
      await store.appendDocuments(runId, 'a', [makeDocument(1), makeDocument(2)]);
      await store.appendDocuments(runId, 'b', [makeDocument(3)]);
      const first = await store.pageDocuments(runId, { limit: 1 });
      const controller = new AbortController();
      const seen: number[] = [];
      for await (const doc of store.followDocuments(runId, { after: first.next ?? undefined, jobId: 'a', signal: controller.signal, intervalMs: 20 })) {
        seen.push(doc.metadata.seq as number);
        if (seen.length === 1) {
          await store.appendDocuments(runId, 'b', [makeDocument(4)]);
          await store.appendDocuments(runId, 'a', [makeDocument(5)]);
        }
        if (seen.length === 2) controller.abort();
      }
      assert.deepEqual(seen, [2, 5]);
    });

    it('writes each document once with concurrent writers in one process', async () => {
      const runId = newRun();
      const writers = [store, createStore(fx.spec), createStore(fx.spec)];
      try {
        const added = await Promise.all(
          writers.flatMap((w, k) =>
            [0, 1].map(async (part) => {
              let n = 0;
              // Overlapping ranges, batch by batch, like retried collectors.
              for (let start = k * 40 + part * 20; start < k * 40 + part * 20 + 80; start += 10) {
                n += await w.appendDocuments(runId, 'job', range(start, start + 10).map((i) => makeDocument(i)));
              }
              return n;
            }),
          ),
        );
        const expected = range(0, 2 * 40 + 20 + 80);
        assert.equal(added.reduce((a, b) => a + b, 0), expected.length);
        const docs = await collect(store.readDocuments(runId));
        assert.deepEqual([...seqs(docs)].sort((a, b) => a - b), expected);
        assert.deepEqual(await store.count(runId), { documents: expected.length, failures: 0, links: 0 });
      } finally {
        await Promise.all(writers.slice(1).map((w) => w.close()));
      }
    });

    it('writes each document once with writers in several processes, readable meanwhile', async () => {
      const runId = newRun();
      const workers = [0, 1, 2].map((k) => runWorker({ spec: fx.spec, runId, jobId: 'job', from: k * 300, to: k * 300 + 600, batch: 25, size: 500 }));
      // Read while they write: every document seen is whole and seen once.
      let reads = 0;
      let settled = false;
      const all = Promise.all(workers).finally(() => (settled = true));
      while (!settled) {
        const docs = await collect(store.readDocuments(runId));
        assert.equal(new Set(docs.map((d) => d.url)).size, docs.length);
        for (const d of docs) assert.equal(d.markdown, makeDocument(d.metadata.seq as number, 500).markdown);
        reads++;
        await new Promise((r) => setTimeout(r, 20));
      }
      const added = await all;
      assert.equal(added.reduce((a, b) => a + b, 0), 1200, `added per worker: ${added.join(', ')}`);
      const docs = await collect(store.readDocuments(runId));
      assert.equal(docs.length, 1200);
      assert.deepEqual([...seqs(docs)].sort((a, b) => a - b), range(0, 1200));
      assert.deepEqual(await store.count(runId, { jobId: 'job' }), { documents: 1200, failures: 0, links: 0 });
      assert.ok(reads > 0);
      // Written by other processes: found by a lookup of this one.
      for (const seq of [0, 599, 1199]) assert.equal((await store.getDocument(runId, 'job', urlOf(seq)))?.markdown, makeDocument(seq, 500).markdown);
    });

    it('streams a 10,000-document run without loading it whole', async (t) => {
      const runId = newRun();
      const total = 10_000;
      const size = 4_000;
      const started = performance.now();
      for (let start = 0; start < total; start += 500) {
        assert.equal(await store.appendDocuments(runId, 'job', range(start, start + 500).map((i) => makeDocument(i, size))), 500);
      }
      const seconds = (performance.now() - started) / 1000;
      t.diagnostic(`${name}: wrote ${total} documents of ~${size / 1000} kB in ${seconds.toFixed(2)} s (${Math.round(total / seconds)} documents/s)`);
      assert.deepEqual(await store.count(runId), { documents: total, failures: 0, links: 0 });
      for (const seq of [0, 5_000, total - 1]) assert.equal((await store.getDocument(runId, 'job', urlOf(seq)))?.metadata.seq, seq);

      const gc = gcFunction();
      gc();
      const baseline = process.memoryUsage().heapUsed;
      let peak = 0;
      let expected = 0;
      const readStarted = performance.now();
      for await (const doc of store.readDocuments(runId)) {
        assert.equal(doc.metadata.seq, expected++);
        if (expected % 1000 === 0) {
          gc();
          peak = Math.max(peak, process.memoryUsage().heapUsed - baseline);
        }
      }
      const readSeconds = (performance.now() - readStarted) / 1000;
      assert.equal(expected, total);
      const runBytes = total * size;
      t.diagnostic(`${name}: read back in ${readSeconds.toFixed(2)} s (${Math.round(total / readSeconds)} documents/s), peak live heap +${(peak / 1e6).toFixed(1)} MB for a ${(runBytes / 1e6).toFixed(0)} MB run`);
      assert.ok(peak < runBytes / 4, `live heap grew by ${peak} bytes while streaming a ${runBytes}-byte run`);
    });
  });
}

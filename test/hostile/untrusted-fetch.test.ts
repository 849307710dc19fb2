// The worker's own fetches reach public addresses only, judged on the address connected to:
// a public-looking name that resolves inward, and a redirect inward, are refused before a byte is
// sent there (the resolver is injected: no real DNS offline). And a catastrophic pattern runs in
// linear time where the worker runs it, over 100,000 URLs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createPublicFetch, PrivateAddressError, type AddressLookup } from '../../packages/client/src/public-fetch.js';
import { WebDataClient } from '../../packages/client/src/client.js';
import { compilePattern } from '../../packages/contract/src/index.js';
import { FilesystemStore } from '../../packages/storage/src/index.js';
import { createActivities } from '../../src/activities/index.js';
import { loadRobots } from '../../src/activities/robots.js';

let inner: Server;
let innerHits = 0;
let innerPort = 0;
let site: Server;
let siteHits = 0;
let sitePort = 0;
/** Where the site's robots.txt redirects (set per case). */
let redirectTo = '';

/** A resolver standing in for DNS: `site.example` is the test site, `inside.example` a private host. */
const lookup: AddressLookup = (hostname, _options, callback) => {
  const table: Record<string, string> = { 'site.example': '127.0.0.1', 'inside.example': '10.0.0.7', 'public.example': '127.0.0.1', 'mapped.example': '::ffff:169.254.169.254' };
  const address = table[hostname];
  if (!address) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
  callback(null, [{ address, family: address.includes(':') ? 6 : 4 }]);
};

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('untrusted-fetch', () => {
  before(async () => {
    inner = createServer((req, res) => {
      innerHits += 1;
      res.end('secret');
    });
    site = createServer((req, res) => {
      siteHits += 1;
      res.writeHead(302, { location: redirectTo }).end();
    });
    await new Promise<void>((resolve) => inner.listen(0, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    innerPort = (inner.address() as AddressInfo).port;
    sitePort = (site.address() as AddressInfo).port;
  });

  after(async () => {
    for (const s of [inner, site]) {
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    }
  });

  test('a public-looking name that resolves to a private address is refused at connect time; nothing is sent', async () => {
    const guarded = createPublicFetch({ allowPrivateAddresses: false, lookup });
    const before = innerHits;
    for (const host of ['public.example', 'mapped.example']) {
      await assert.rejects(guarded.fetch(`http://${host}:${innerPort}/latest/meta-data/`), (err: unknown) => {
        assert.ok(err instanceof PrivateAddressError, String(err));
        assert.match(err.message, new RegExp(`^http://${host.replace('.', '\\.')}:${innerPort}/latest/meta-data/: must be a public address: ${host.replace('.', '\\.')} \\((127\\.0\\.0\\.1|::ffff:169\\.254\\.169\\.254)\\) is a (loopback|link-local) address`));
        return true;
      });
    }
    assert.equal(innerHits - before, 0, 'a request reached the private server');
    await guarded.close();

    // The same name with private addresses allowed reaches it: the refusal is the guard's alone.
    const open = createPublicFetch({ allowPrivateAddresses: true, lookup });
    const res = await open.fetch(`http://public.example:${innerPort}/`);
    assert.equal(await res.text(), 'secret');
    assert.equal(innerHits - before, 1);
    await open.close();
  });

  test('a list allows a private host by host:port, or a name by name:port, and nothing else', async () => {
    const listed = createPublicFetch({ allowPrivateAddresses: [`127.0.0.1:${innerPort}`, `public.example:${innerPort}`, `mapped.example:${innerPort}`], lookup });
    const before = innerHits;
    assert.equal(await (await listed.fetch(`http://127.0.0.1:${innerPort}/`)).text(), 'secret');
    assert.equal(await (await listed.fetch(`http://public.example:${innerPort}/`)).text(), 'secret', 'a listed name that resolves to a private address');
    assert.equal(innerHits - before, 2);
    const refused: Array<[string, RegExp]> = [
      [`http://127.0.0.1:${sitePort}/`, new RegExp(`127\\.0\\.0\\.1 is a loopback address \\(add 127\\.0\\.0\\.1:${sitePort} to WEBDATA_ALLOW_PRIVATE_ADDRESSES to allow it\\)$`)],
      [`http://public.example:${sitePort}/`, new RegExp(`public\\.example \\(127\\.0\\.0\\.1\\) is a loopback address \\(add public\\.example:${sitePort} to WEBDATA_ALLOW_PRIVATE_ADDRESSES to allow it\\)$`)],
      [`http://inside.example:${innerPort}/`, /inside\.example \(10\.0\.0\.7\) is a private address/],
      // A listed name that resolves to a cloud metadata address: only the address itself allows it.
      [`http://mapped.example:${innerPort}/`, /mapped\.example \(::ffff:169\.254\.169\.254\) is a link-local address/],
    ];
    for (const [url, why] of refused) {
      await assert.rejects(listed.fetch(url), (err: unknown) => err instanceof PrivateAddressError && why.test(err.message), url);
    }
    assert.equal(innerHits - before, 2, 'a refused request reached a server');
    await listed.close();
  });

  test('a redirect inward is refused at every hop, whatever its spelling; nothing reaches the inner server', async () => {
    // The test site stands in for a public one: only its address counts as public here.
    const guarded = createPublicFetch({ allowPrivateAddresses: false, lookup, treatAsPublic: (a) => a === '127.0.0.1' });
    const targets: Array<[string, RegExp]> = [
      [`http://inside.example:${innerPort}/`, /inside\.example \(10\.0\.0\.7\) is a private address/],
      [`http://2130706434:${innerPort}/`, /127\.0\.0\.2 is a loopback address/],
      ['http://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is a link-local address/],
      [`http://[::ffff:127.0.0.2]:${innerPort}/`, /is a loopback address/],
      [`http://localhost.:${innerPort}/`, /localhost\. is a loopback address/],
    ];
    const innerBefore = innerHits;
    for (const [target, why] of targets) {
      redirectTo = target;
      const siteBefore = siteHits;
      await assert.rejects(guarded.fetch(`http://site.example:${sitePort}/robots.txt`), (err: unknown) => {
        assert.ok(err instanceof PrivateAddressError, String(err));
        assert.match(err.message, why);
        return true;
      });
      assert.equal(siteHits - siteBefore, 1, 'the first hop is fetched');
    }
    assert.equal(innerHits - innerBefore, 0, 'a redirect reached the inner server');

    // robots.txt that redirects inward: no request inward, the origin read as having no robots.txt.
    redirectTo = `http://inside.example:${innerPort}/robots.txt`;
    const rules = await loadRobots(`http://site.example:${sitePort}`, { userAgent: 'WebDataBot', timeoutMs: 5_000, fetch: guarded.fetch });
    assert.equal(rules.kind, 'allow-all');
    assert.match(rules.kind === 'allow-all' ? rules.why : '', /must be a public address/);
    assert.equal(innerHits - innerBefore, 0);
    await guarded.close();
  });

  test('(a+)+$ over 100,000 stored URLs: selected in linear time by the worker', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wd-linear-'));
    const store = new FilesystemStore({ root: dir });
    const client = new WebDataClient({ apiKey: 'k', baseUrl: 'http://127.0.0.1:9' });
    try {
      const acts = createActivities({ client, store, allowPrivateAddresses: false });
      // Even URLs end in a run of a's (a match), odd ones in "!" after it: with backtracking, each
      // odd one alone would take longer than this whole test (2^28 ways to split the run).
      const links = Array.from({ length: 100_000 }, (_, i) => ({ url: `https://site.example/${i}/${'a'.repeat(28)}${i % 2 ? '!' : ''}` }));
      for (let i = 0; i < links.length; i += 10_000) await store.appendLinks('linear', 'mapped', links.slice(i, i + 10_000));
      const env = new MockActivityEnvironment({ workflowExecution: { workflowId: 'wf-linear', runId: 'r1' } } as never, { logger: new DefaultLogger('ERROR') });
      const cpu = process.cpuUsage();
      const result = (await env.run(acts.selectUrls, { runId: 'linear', fromList: 'mapped', toList: 'selected', include: ['(a+)+$'] })) as { count: number };
      const used = process.cpuUsage(cpu);
      assert.equal(result.count, 50_000);
      // The matching alone, on the same paths: what the pattern engine itself costs.
      const pattern = compilePattern('(a+)+$');
      const paths = links.map((l) => new URL(l.url).pathname);
      const matchCpu = process.cpuUsage();
      assert.equal(paths.filter((p) => pattern.test(p)).length, 50_000);
      const matching = process.cpuUsage(matchCpu);
      const ms = (u: NodeJS.CpuUsage) => ((u.user + u.system) / 1000).toFixed(0);
      console.log(`(a+)+$ over 100,000 URLs: selectUrls ${ms(used)} ms CPU (store reads and writes included), matching alone ${ms(matching)} ms CPU`);
    } finally {
      await client.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

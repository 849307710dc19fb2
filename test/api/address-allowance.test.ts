// WEBDATA_ALLOW_PRIVATE_ADDRESSES as a list of private hosts allowed by name: how it is read and
// how a URL's host (or an address from DNS) is matched against it. Pure functions, no server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  addressAllowanceOf,
  allowsHost,
  allowsResolved,
  describeAddressAllowance,
  parseAddressAllowance,
  privateUrlIssues,
  privateUrlReason,
} from '../../packages/contract/src/index.js';

const RULE = /^WEBDATA_ALLOW_PRIVATE_ADDRESSES: .*must be 0 \(off\) or a comma-separated list of host or host:port \(IPv6 in brackets\), e\.g\. 127\.0\.0\.1:3003,crawler\.internal:8080$/;

test('allowance: empty, 0 and false are off; 1 and true the blanket; a list its hosts in one form', () => {
  for (const off of [undefined, '', '  ', '0', 'false', 'FALSE']) assert.deepEqual(parseAddressAllowance(off), { all: false, hosts: [] }, String(off));
  for (const all of ['1', 'true', 'True', ' 1 ']) assert.deepEqual(parseAddressAllowance(all), { all: true, hosts: [] }, all);
  assert.deepEqual(parseAddressAllowance('127.0.0.1:3003,127.0.0.1:3004').hosts, ['127.0.0.1:3003', '127.0.0.1:3004']);
  // Case, trailing dots, spaces, a trailing comma and repeats are forgiven; IPv6 is compressed.
  assert.deepEqual(parseAddressAllowance(' Crawler.Internal.:8080 , minio, [0:0:0:0:0:0:0:1]:9000,[FD12::1], minio,').hosts, ['crawler.internal:8080', 'minio', '[::1]:9000', '[fd12::1]']);
});

test('allowance: a malformed entry is one line naming the variable, the entry and the rule', () => {
  for (const bad of ['::1', '::1:3003', 'http://127.0.0.1:3003', '127.0.0.1:0', '127.0.0.1:65536', 'host:port', '10.1', '0x7f.1', '*.internal', 'a b', '[crawler.internal]', '127.0.0.1/8', ',', 'yes']) {
    assert.throws(() => parseAddressAllowance(bad), (err: Error) => RULE.test(err.message) && !err.message.includes('\n'), bad);
  }
  assert.throws(() => parseAddressAllowance('127.0.0.1:3003,localhost:x'), { message: /^WEBDATA_ALLOW_PRIVATE_ADDRESSES: "localhost:x" is not a host or host:port: must be 0/ });
  assert.throws(() => addressAllowanceOf(['ok.internal', '::1']), { message: /^allowPrivateAddresses: "::1" is not a host or host:port/ });
});

test('allowance: host alone allows any port, host:port that port only; IPv6 in brackets; case and trailing dot ignored', () => {
  const a = parseAddressAllowance('127.0.0.1:3003,minio,[::1]:8080,Crawler.Internal:80');
  assert.equal(allowsHost(a, '127.0.0.1', '3003'), true);
  assert.equal(allowsHost(a, '127.0.0.1', '3004'), false);
  assert.equal(allowsHost(a, 'minio', '9000'), true);
  assert.equal(allowsHost(a, 'MINIO.', 9001), true);
  assert.equal(allowsHost(a, '[::1]', '8080'), true);
  assert.equal(allowsHost(a, '::1', 8080), true);
  assert.equal(allowsHost(a, '[::1]', '8081'), false);
  assert.equal(allowsHost(a, 'crawler.internal.', '80'), true);
  assert.equal(allowsHost(a, '127.0.0.2', '3003'), false);

  assert.equal(privateUrlReason('http://127.0.0.1:3003/docs', a), undefined);
  assert.equal(privateUrlReason('http://CRAWLER.internal/', a), undefined, 'no port: the scheme\'s (80)');
  assert.equal(privateUrlReason('https://crawler.internal/', a), undefined, 'a name is judged after DNS');
  assert.equal(privateUrlReason('http://127.0.0.1:3004/', a), 'must be a public address: 127.0.0.1 is a loopback address (add 127.0.0.1:3004 to WEBDATA_ALLOW_PRIVATE_ADDRESSES to allow it)');
  assert.equal(privateUrlReason('http://[::1]:9/', a), 'must be a public address: [::1] is a loopback address (add [::1]:9 to WEBDATA_ALLOW_PRIVATE_ADDRESSES to allow it)');
  assert.equal(privateUrlReason('http://10.0.0.1/'), 'must be a public address: 10.0.0.1 is a private address (add 10.0.0.1:80 to WEBDATA_ALLOW_PRIVATE_ADDRESSES to allow it)');
  // Another spelling of a listed address is the same address once WHATWG URL wrote it out.
  assert.equal(privateUrlReason('http://2130706433:3003/', a), undefined);

  const issues = privateUrlIssues({ url: 'http://127.0.0.1:3003/', webhookUrl: 'http://127.0.0.1:3009/hook' }, a);
  assert.deepEqual(issues.map((i) => i.path), ['webhookUrl']);
});

test('allowance: a cloud metadata address passes only when listed itself, never through a listed name', () => {
  const byName = parseAddressAllowance('crawler.internal:80');
  assert.equal(allowsResolved(byName, 'crawler.internal', '10.0.0.5', '80'), true, 'a listed name that resolves inward');
  assert.equal(allowsResolved(byName, 'crawler.internal', '10.0.0.5', '81'), false, 'on another port');
  assert.equal(allowsResolved(byName, 'crawler.internal', '169.254.169.254', '80'), false);
  assert.equal(allowsResolved(byName, 'crawler.internal', 'fd00:ec2::254', '80'), false);
  assert.match(privateUrlReason('http://169.254.169.254/latest/meta-data/', byName) ?? '', /169\.254\.169\.254 is a link-local address \(add 169\.254\.169\.254:80 to/);
  assert.match(privateUrlReason('http://metadata.google.internal/', byName) ?? '', /metadata\.google\.internal is a cloud metadata address/);

  const exact = parseAddressAllowance('169.254.169.254,metadata.google.internal:80');
  assert.equal(privateUrlReason('http://169.254.169.254/latest/meta-data/', exact), undefined);
  assert.equal(privateUrlReason('http://metadata.google.internal/', exact), undefined);
  assert.equal(allowsResolved(exact, 'anything.internal', '169.254.169.254', '80'), true, 'the address itself is listed');
  assert.equal(allowsResolved(parseAddressAllowance('1'), 'x', '169.254.169.254', '80'), true, 'the blanket allowance stays blanket');
});

test('allowance: one line for doctor says off, which hosts, or blanket', () => {
  assert.equal(describeAddressAllowance(parseAddressAllowance('')), 'private addresses: refused (WEBDATA_ALLOW_PRIVATE_ADDRESSES is off)');
  assert.equal(describeAddressAllowance(parseAddressAllowance('127.0.0.1:3003,127.0.0.1:3004')), 'private addresses: allowed only for 127.0.0.1:3003, 127.0.0.1:3004 (WEBDATA_ALLOW_PRIVATE_ADDRESSES)');
  const blanket = describeAddressAllowance(parseAddressAllowance('true'));
  assert.match(blanket, /^private addresses: all allowed/);
  assert.doesNotMatch(blanket, /=1/, 'nothing prints the blanket setting for copy-paste');
});

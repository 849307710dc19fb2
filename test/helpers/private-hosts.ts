// Tests allow their own servers on 127.0.0.1 the way a user does: by adding each one's host:port
// to WEBDATA_ALLOW_PRIVATE_ADDRESSES in the environment, which this process's clients and
// workers, and the children it starts, read. Call it before creating the clients that need it.
import { ALLOW_PRIVATE_ADDRESSES_ENV, parseAddressAllowance } from '../../packages/contract/src/index.js';

/**
 * Adds the host:port of each URL to WEBDATA_ALLOW_PRIVATE_ADDRESSES (the blanket value stays);
 * returns what puts the previous value back (for files that share a process with others).
 */
export function allowPrivateHosts(...urls: string[]): () => void {
  return allowEntries(urls.map((u) => new URL(u).host));
}

/**
 * Adds the host of each URL, every port (a `host` entry), as a user does who runs more servers on
 * one host than a run's input records (at most 100 entries).
 */
export function allowPrivateHostnames(...urls: string[]): () => void {
  return allowEntries(urls.map((u) => new URL(u).hostname));
}

function allowEntries(entries: string[]): () => void {
  const before = process.env[ALLOW_PRIVATE_ADDRESSES_ENV];
  const restore = () => {
    if (before === undefined) delete process.env[ALLOW_PRIVATE_ADDRESSES_ENV];
    else process.env[ALLOW_PRIVATE_ADDRESSES_ENV] = before;
  };
  const current = parseAddressAllowance(before);
  if (current.all) return restore;
  const hosts = new Set([...current.hosts, ...entries]);
  process.env[ALLOW_PRIVATE_ADDRESSES_ENV] = [...hosts].join(',');
  return restore;
}

// Job ids: UUID v7 (time-ordered), as the hosted service uses.
import { randomBytes, randomUUID } from 'node:crypto';

export function newJobId(now = Date.now()): string {
  const bytes = randomBytes(16);
  let ms = BigInt(now);
  for (let i = 5; i >= 0; i--) {
    bytes[i] = Number(ms & 0xffn);
    ms >>= 8n;
  }
  bytes[6] = (bytes[6] & 0x0f) | 0x70;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Random ids for requests, webhook deliveries and exceptions. */
export function newRandomId(): string {
  return randomUUID();
}

// Job ids: UUID v7 (time-ordered), as the hosted service uses.
import { randomBytes, randomUUID } from 'node:crypto';

export function newJobId(now = Date.now()): string {
  // The random part of a v4 UUID is where v7 wants its own, with the same variant bits; randomUUID
  // draws from a buffered pool, where randomBytes asks for (and allocates) 16 bytes per id.
  if (Number.isSafeInteger(now) && now >= 0 && now < 2 ** 48) {
    const time = now.toString(16).padStart(12, '0');
    const random = randomUUID();
    return `${time.slice(0, 8)}-${time.slice(8)}-7${random.slice(15)}`;
  }
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

// temporal.api.common.v1.Payload in protobuf's wire format, the bytes a payload codec encrypts:
// the same bytes `Payload.encode` of @temporalio/proto writes (a test compares them), without
// depending on that package (the package has @temporalio/common as its peer, not the protos).
//   message Payload { map<string, bytes> metadata = 1; bytes data = 2; ... }
// Field 3 (external_payloads, the SDK's experimental external storage) is not written: the codec
// leaves such reference payloads as they are.
import type { Payload } from '@temporalio/common';

const LEN = 2;
const VARINT = 0;
const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder('utf-8', { fatal: true });

class Writer {
  private readonly parts: Uint8Array[] = [];
  private size = 0;
  varint(value: number): this {
    const bytes: number[] = [];
    let v = value;
    while (v > 0x7f) {
      bytes.push((v % 0x80) | 0x80);
      v = Math.floor(v / 0x80);
    }
    bytes.push(v);
    return this.raw(Uint8Array.from(bytes));
  }
  raw(bytes: Uint8Array): this {
    this.parts.push(bytes);
    this.size += bytes.length;
    return this;
  }
  field(number: number, bytes: Uint8Array): this {
    return this.varint((number << 3) | LEN).varint(bytes.length).raw(bytes);
  }
  finish(): Uint8Array {
    const out = new Uint8Array(this.size);
    let at = 0;
    for (const p of this.parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }
}

class Reader {
  at = 0;
  constructor(private readonly bytes: Uint8Array) {}
  get done(): boolean {
    return this.at >= this.bytes.length;
  }
  varint(): number {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.at >= this.bytes.length) throw new Error('payload proto: truncated varint');
      const b = this.bytes[this.at++];
      value += (b & 0x7f) * scale;
      if (b < 0x80) return value;
      scale *= 0x80;
    }
    throw new Error('payload proto: varint too long');
  }
  chunk(): Uint8Array {
    const length = this.varint();
    if (this.at + length > this.bytes.length) throw new Error('payload proto: truncated field');
    const out = this.bytes.subarray(this.at, this.at + length);
    this.at += length;
    return out;
  }
  skip(wireType: number): void {
    if (wireType === VARINT) this.varint();
    else if (wireType === LEN) this.chunk();
    else if (wireType === 1) this.at += 8;
    else if (wireType === 5) this.at += 4;
    else throw new Error(`payload proto: unsupported wire type ${wireType}`);
  }
}

/** The Payload's protobuf bytes (fields in field order, map entries in insertion order, as protobufjs writes them). */
export function encodePayloadProto(payload: Payload): Uint8Array {
  const w = new Writer();
  for (const [key, value] of Object.entries(payload.metadata ?? {})) {
    const entry = new Writer().field(1, utf8.encode(key)).field(2, value ?? new Uint8Array()).finish();
    w.field(1, entry);
  }
  if (payload.data && payload.data.length > 0) w.field(2, payload.data);
  return w.finish();
}

/** A Payload from its protobuf bytes; unknown fields are skipped, as protobuf readers do. */
export function decodePayloadProto(bytes: Uint8Array): Payload {
  const r = new Reader(bytes);
  const metadata: Record<string, Uint8Array> = {};
  let data = new Uint8Array();
  while (!r.done) {
    const tag = r.varint();
    const field = Math.floor(tag / 8);
    const wireType = tag & 7;
    if (field === 1 && wireType === LEN) {
      const entry = new Reader(r.chunk());
      let key = '';
      let value = new Uint8Array();
      while (!entry.done) {
        const t = entry.varint();
        if (t === ((1 << 3) | LEN)) key = fromUtf8.decode(entry.chunk());
        else if (t === ((2 << 3) | LEN)) value = Uint8Array.from(entry.chunk());
        else entry.skip(t & 7);
      }
      metadata[key] = value;
    } else if (field === 2 && wireType === LEN) {
      data = Uint8Array.from(r.chunk());
    } else {
      r.skip(wireType);
    }
  }
  return { metadata, data };
}

// Streams the complete lines of a file with their byte positions. A last line without
// its newline is a write still in progress or torn by a crash, so it is never returned.
import { createReadStream } from 'node:fs';

export interface Line {
  text: string;
  /** Byte offset of the line's first byte. */
  start: number;
  /** Byte offset just past the line's newline. */
  end: number;
}

const NEWLINE = 0x0a;

/** Complete lines in [start, end) of the file; nothing if the file does not exist. */
export async function* readLines(path: string, start: number, end: number): AsyncGenerator<Line> {
  if (end <= start) return;
  const stream = createReadStream(path, { start, end: end - 1, highWaterMark: 256 * 1024 });
  let pending: Buffer[] = [];
  let lineStart = start;
  let chunkStart = start;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let from = 0;
      for (let nl = chunk.indexOf(NEWLINE); nl !== -1; nl = chunk.indexOf(NEWLINE, from)) {
        const piece = chunk.subarray(from, nl);
        const bytes = pending.length === 0 ? piece : Buffer.concat([...pending, piece]);
        pending = [];
        const lineEnd = chunkStart + nl + 1;
        yield { text: bytes.toString('utf8'), start: lineStart, end: lineEnd };
        lineStart = lineEnd;
        from = nl + 1;
      }
      if (from < chunk.length) pending.push(chunk.subarray(from));
      chunkStart += chunk.length;
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  } finally {
    stream.destroy();
  }
}

// The file of POST /v2/parse: a path, a Buffer (any Uint8Array) or a readable stream, read
// into memory with the 50 MB cap checked before anything is sent. A file over the cap, a
// path that is not a readable file, or an input of another kind is a local validation error.
import { stat, readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { Blob } from 'node:buffer';
import { FormData } from 'undici';
import { MAX_PARSE_FILE_BYTES } from 'webdata-contract';
import { WebDataApiError } from './errors.js';

/** A path, the bytes themselves, or a stream of them (Node Readable or any async iterable of chunks). */
export type ParseFileInput = string | Uint8Array | AsyncIterable<Uint8Array | string>;

export interface ParseFileOptions {
  /** Name sent with the file; default the path's base name, or `upload` plus an extension of the content type. */
  filename?: string;
  /** MIME type sent with the file; default from the file name's extension. */
  contentType?: string;
}

const TYPES: Readonly<Record<string, string>> = {
  '.pdf': 'application/pdf',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.markdown': 'text/markdown',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
};

function invalid(message: string, code = 'LOCAL_VALIDATION', cause?: unknown): WebDataApiError {
  return new WebDataApiError({ kind: 'validation', code, message: `parse file: ${message}`, cause });
}

function tooLarge(bytes: number | undefined): WebDataApiError {
  const mb = MAX_PARSE_FILE_BYTES / (1024 * 1024);
  const size = bytes === undefined ? 'more than that' : `${bytes} bytes`;
  return invalid(`is over the ${mb} MB limit (${MAX_PARSE_FILE_BYTES} bytes): ${size}`, 'FILE_TOO_LARGE');
}

async function readPath(path: string): Promise<Uint8Array> {
  let info;
  try {
    info = await stat(path);
  } catch (err) {
    throw invalid(`cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? String(err)})`, 'FILE_NOT_READABLE', err);
  }
  if (!info.isFile()) throw invalid(`${path} is not a file`, 'FILE_NOT_READABLE');
  if (info.size > MAX_PARSE_FILE_BYTES) throw tooLarge(info.size);
  try {
    return await readFile(path);
  } catch (err) {
    throw invalid(`cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? String(err)})`, 'FILE_NOT_READABLE', err);
  }
}

/** Reads a stream, stopping (and destroying it when it can) as soon as it passes the cap. */
async function readStream(stream: AsyncIterable<Uint8Array | string>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += bytes.byteLength;
    if (size > MAX_PARSE_FILE_BYTES) {
      (stream as { destroy?: () => void }).destroy?.();
      throw tooLarge(undefined);
    }
    chunks.push(bytes);
  }
  return Buffer.concat(chunks);
}

function isAsyncIterable(value: unknown): value is AsyncIterable<Uint8Array | string> {
  return value !== null && typeof value === 'object' && typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function';
}

export async function readUpload(file: unknown, options: ParseFileOptions): Promise<{ bytes: Uint8Array; filename: string; contentType: string }> {
  if (options.filename !== undefined && (typeof options.filename !== 'string' || options.filename.trim() === '')) {
    throw invalid('filename: must be a non-empty string');
  }
  if (options.contentType !== undefined && (typeof options.contentType !== 'string' || !/^[\w.+-]+\/[\w.+-]+/.test(options.contentType))) {
    throw invalid('contentType: must be a MIME type such as application/pdf');
  }
  let bytes: Uint8Array;
  let name = options.filename;
  if (typeof file === 'string') {
    if (file === '') throw invalid('path: must not be empty');
    bytes = await readPath(file);
    name ??= basename(file);
  } else if (file instanceof Uint8Array) {
    if (file.byteLength > MAX_PARSE_FILE_BYTES) throw tooLarge(file.byteLength);
    bytes = file;
  } else if (isAsyncIterable(file)) {
    bytes = await readStream(file);
  } else {
    throw invalid('must be a path, a Buffer or a readable stream');
  }
  const byName = name ? TYPES[extname(name).toLowerCase()] : undefined;
  const contentType = options.contentType ?? byName ?? 'application/octet-stream';
  if (!name) {
    const ext = Object.entries(TYPES).find(([, type]) => type === contentType)?.[0] ?? '';
    name = `upload${ext}`;
  }
  return { bytes, filename: name, contentType };
}

/** The multipart body: field `file`, and `options` as JSON when given. */
export function uploadForm(upload: { bytes: Uint8Array; filename: string; contentType: string }, options: unknown): FormData {
  const form = new FormData();
  form.append('file', new Blob([upload.bytes], { type: upload.contentType }), upload.filename);
  if (options !== undefined) form.append('options', JSON.stringify(options));
  return form;
}

// Run ids and list names become file names. Plain ones are used as they are (readable
// on disk); anything else — slashes, dots first, unicode, very long — is base64url
// encoded behind a '~', which a plain name can never start with.
const PLAIN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,119}$/;

export function encodeName(name: string): string {
  if (PLAIN.test(name)) return name;
  const encoded = `~${Buffer.from(name, 'utf8').toString('base64url')}`;
  // Most file systems cap a name at 255 bytes; leave room for prefixes and suffixes.
  if (encoded.length > 200) throw new RangeError(`name too long for the filesystem store (${name.length} characters): ${name.slice(0, 40)}...`);
  return encoded;
}

/** The name behind a file name, or null if the file name is not one of ours. */
export function decodeName(fileName: string): string | null {
  if (PLAIN.test(fileName)) return fileName;
  if (!fileName.startsWith('~')) return null;
  const name = Buffer.from(fileName.slice(1), 'base64url').toString('utf8');
  try {
    return encodeName(name) === fileName ? name : null;
  } catch {
    return null;
  }
}

// What changes from run to run in a command's output, replaced by a placeholder in both the line a
// page shows and the line the command printed, so that the two compare. The rules, in order:
//   uuid                        01a1fcb6-c506-772a-b230-eacfc1c7a56c   → <uuid>
//   ISO timestamp               2026-11-23T07:56:45.344Z               → <time>
//   epoch milliseconds          1795710447627 (13 digits)              → <epoch>
//   duration                    768 s, 2.1 ms, 3 min                   → <duration>
//   mkdtemp folder suffix       /tmp/webdata-store-vjwq9W              → /tmp/webdata-store-XXXXXX
//   ephemeral port              127.0.0.1:45757 (32768-65535)          → 127.0.0.1:<port>
//   home folder                 /root/.cache, /home/ann/.cache, $HOME  → ~/.cache
//   runs of spaces              column padding                         → one space
// Fixed ports a page chooses (3003, 17633) stay compared. A page marks more as variable with a
// comment on the line above the block's fence:
//   <!-- doctest: numbers vary -->          every number in the block's output → <n>
//   <!-- doctest: output not compared -->   only the commands' exit codes count
// and, in a shown line, a trailing `…` (or `...`) compares only what comes before it; a line of
// just `…` stands for lines left out (always allowed: shown lines must appear in order, others
// may come between).

export interface NormaliseOptions {
  numbersVary?: boolean;
  /** The HOME the command ran with, written `~` like any other home folder. */
  home?: string;
}

// Colour and cursor codes (ESC [ ... letter).
const ANSI = new RegExp(String.raw`\u001b\[[0-9;?]*[A-Za-z]`, 'g');
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const TIMESTAMP = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z\b/g;
const EPOCH_MS = /\b1\d{12}\b/g;
const DURATION = /\b\d+(\.\d+)? ?(ms|s|min)\b/g;
const MKDTEMP = /(\/tmp\/[\w.-]*-)[A-Za-z0-9]{6}(?![\w.-])/g;
const HOME = /(?<![\w.-])(\/root|\/home\/[^/\s]+)(?=\/)/g;
const PORT = /(?<=[\w\]]:)(\d{5})\b/g;

export function normaliseLine(line: string, options: NormaliseOptions = {}): string {
  let out = (options.home ? line.split(options.home).join('~') : line)
    .replace(HOME, '~')
    .replace(ANSI, '')
    .replace(UUID, '<uuid>')
    .replace(TIMESTAMP, '<time>')
    .replace(EPOCH_MS, '<epoch>')
    .replace(DURATION, '<duration>')
    .replace(MKDTEMP, '$1XXXXXX')
    .replace(PORT, (port) => (Number(port) >= 32768 && Number(port) <= 65535 ? '<port>' : port))
    .replace(/\s+/g, ' ')
    .trim();
  if (options.numbersVary) out = out.replace(/\d+/g, '<n>');
  return out;
}

const ELLIPSIS = /\s*(…|\.\.\.)$/;

/** A shown line of just `…` (or `...`): lines left out, nothing to compare. */
export function isElision(line: string): boolean {
  return /^\s*(…|\.\.\.)\s*$/.test(line);
}

/** The printed lines: a command's output split at newlines and carriage returns (progress redraws). */
export function outputLines(output: string): string[] {
  return output.split(/\r\n|\r|\n/).filter((l) => l.trim() !== '');
}

export type Comparison = { ok: true } | { ok: false; missing: string; after: string | undefined };

/**
 * Whether every shown line appears in the output, in the page's order (other printed lines may
 * come between), both normalised. On a miss: the first shown line not found, and the last one
 * that was (where the search stopped making progress).
 */
export function compareOutput(shown: string[], output: string, options: NormaliseOptions = {}): Comparison {
  const printed = outputLines(output).map((l) => normaliseLine(l, options));
  let at = 0;
  let after: string | undefined;
  for (const line of shown) {
    if (isElision(line)) continue;
    const prefix = ELLIPSIS.test(line);
    const want = normaliseLine(line.replace(ELLIPSIS, ''), options);
    const found = printed.findIndex((p, i) => i >= at && (prefix ? p.startsWith(want) : p === want));
    if (found === -1) return { ok: false, missing: line, after };
    at = found + 1;
    after = line;
  }
  return { ok: true };
}

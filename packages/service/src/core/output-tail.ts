// The end of a child process's output, for an error message a caller reads: terminal styling
// removed (Playwright colours its call logs), and cut at a line start rather than mid-word.
import { stripVTControlCharacters } from 'node:util';

export function outputTail(output: string, maxChars = 500): string {
  const text = stripVTControlCharacters(output).trim();
  if (text.length <= maxChars) return text;
  const tail = text.slice(-maxChars);
  const lineStart = tail.indexOf('\n');
  return lineStart >= 0 && lineStart < tail.length - 1 ? tail.slice(lineStart + 1) : `…${tail.slice(1)}`;
}

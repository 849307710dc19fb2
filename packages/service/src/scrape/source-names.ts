// Names (of elements, of attributes) found where a page writes them, without taking them out as a
// string: the native prescan reads every tag of every page, and a substring per name cost more than
// the comparison. Entries are kept by the length and first character of their name (under 16 and
// 128), and a name written in lower case, as most are, is matched against them in place.
const SHAPES = 16 * 128;

export class SourceNames<T> {
  private readonly byShape: (Array<{ name: string; entry: T }> | undefined)[] = Array.from({ length: SHAPES }, () => undefined);

  constructor(entries: Iterable<[name: string, entry: T]>) {
    for (const [name, entry] of entries) {
      if (name.length < 16 && name.charCodeAt(0) < 128) (this.byShape[name.length * 128 + name.charCodeAt(0)] ??= []).push({ name, entry });
    }
  }

  /** The entry whose name is written at html[start, end) exactly, or undefined. */
  at(html: string, start: number, end: number): T | undefined {
    const length = end - start;
    const first = html.charCodeAt(start);
    const candidates = length < 16 && first < 128 ? this.byShape[length * 128 + first] : undefined;
    if (candidates) {
      for (const { name, entry } of candidates) {
        let k = 1;
        while (k < length && html.charCodeAt(start + k) === name.charCodeAt(k)) k++;
        if (k === length) return entry;
      }
    }
    return undefined;
  }
}

// The one pass's output: HTML appended in pieces and cut back to an earlier length (a removed
// element, a caption moved after its table). Cutting a string built by `+=` flattens it, a copy of
// everything written so far: on a page of nested removed elements (`<nav>` in `<nav>` ...) that is
// a copy per element, quadratic in the page. Here each piece is dropped at most once and the
// pieces are joined once, at the end.
export class HtmlBuffer {
  private readonly parts: string[] = [];
  private size = 0;

  get length(): number {
    return this.size;
  }

  append(text: string): void {
    if (text === '') return;
    this.parts.push(text);
    this.size += text.length;
  }

  /** Cuts the buffer back to its first `at` characters and returns what was cut. */
  cut(at: number): string {
    const removed: string[] = [];
    this.truncate(at, removed);
    return removed.reverse().join('');
  }

  /** Cuts the buffer back to its first `at` characters. */
  truncate(at: number, removed?: string[]): void {
    while (this.size > at) {
      const last = this.parts.pop()!;
      this.size -= last.length;
      if (this.size >= at) {
        removed?.push(last);
        continue;
      }
      const keep = at - this.size;
      this.parts.push(last.slice(0, keep));
      removed?.push(last.slice(keep));
      this.size = at;
    }
  }

  toString(): string {
    return this.parts.join('');
  }
}

// htmlparser2's parser with one HTML5 rule it lacks: an end tag </body> or </html> closes
// nothing. A browser (and so the reference, which reads pages as Chromium built them) keeps the
// elements open at that point open, and content after those tags lands in the element still
// open: after `<footer>text</body><p>more`, the paragraph is in the footer. htmlparser2 would
// close the footer and the body and leave the paragraph outside both. Both conversion paths parse
// with this, so they agree on where such content goes.
import { DomHandler, type Document } from 'domhandler';
import { Parser, type Handler, type ParserOptions } from 'htmlparser2';

const IGNORED_END_TAGS: ReadonlySet<string> = new Set(['body', 'html']);

export class Html5Parser extends Parser {
  /** `source`: the whole page, given to end() in one piece (the tokenizer's indices point into it). */
  constructor(private readonly source: string, cbs: Partial<Handler>, options: ParserOptions) {
    super(cbs, options);
  }

  override onclosetag(start: number, endIndex: number): void {
    // Both names are four letters: other end tags are passed on without a slice.
    if (endIndex - start !== 4 || !IGNORED_END_TAGS.has(this.source.slice(start, endIndex).toLowerCase())) {
      super.onclosetag(start, endIndex);
      return;
    }
    // What the parser's own handler does besides closing: move its indices past the tag.
    this.endIndex = endIndex;
    this.startIndex = endIndex + 1;
  }
}

/** The page as a document tree, parsed as above (HTML mode, entities decoded). */
export function parseHtml5Document(source: string): Document {
  const handler = new DomHandler();
  new Html5Parser(source, handler, { xmlMode: false, decodeEntities: true }).end(source);
  return handler.root;
}

// The one pass's output buffer: appends, cuts back to a length (returning what was cut) and joins.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HtmlBuffer } from '../src/scrape/html-buffer.js';

describe('HtmlBuffer', () => {
  it('cuts back to a length inside a piece or at its edge, and returns what it cut', () => {
    const buffer = new HtmlBuffer();
    for (const piece of ['<p>', 'one', '', '</p>', '<p>two</p>']) buffer.append(piece);
    assert.equal(buffer.length, 20);
    assert.equal(buffer.cut(11), 'p>two</p>');
    assert.equal(buffer.toString(), '<p>one</p><');
    buffer.truncate(10);
    assert.equal(buffer.toString(), '<p>one</p>');
    buffer.truncate(10);
    buffer.truncate(99);
    assert.equal(buffer.length, 10);
    assert.equal(buffer.cut(1), 'p>one</p>');
    buffer.append('x');
    assert.equal(buffer.toString(), '<x');
    assert.equal(buffer.cut(0), '<x');
    assert.equal(buffer.length, 0);
    assert.equal(buffer.toString(), '');
  });

  it('matches a string cut and appended at random lengths', () => {
    let seed = 7;
    const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    const buffer = new HtmlBuffer();
    let text = '';
    for (let i = 0; i < 2_000; i++) {
      if (next(3) === 0 && text.length > 0) {
        const at = next(text.length + 1);
        assert.equal(buffer.cut(at), text.slice(at));
        text = text.slice(0, at);
      } else {
        const piece = 'abcdefgh'.slice(0, next(9));
        buffer.append(piece);
        text += piece;
      }
      assert.equal(buffer.length, text.length);
    }
    assert.equal(buffer.toString(), text);
  });
});

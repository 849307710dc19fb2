// POST /v2/parse on real files of every kind it takes, made here: a PDF (pdf-lib), a DOCX (a
// zip written below, opened by mammoth), HTML and text; other kinds answer 415 naming the kinds.
import assert from 'node:assert/strict';
import { crc32 } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { WebDataApiError, WebDataClient } from '../../client/src/index.js';
import { startLocalService, type LocalService } from '../src/app.js';
import { silentLogger } from '../src/http/logger.js';
import { team } from './platform-helpers.js';

let svc: LocalService;
let client: WebDataClient;

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('parse', () => {
  before(async () => {
    svc = await startLocalService({ teams: [team('parse', { credits: 100 })], site: false, logger: silentLogger });
    client = new WebDataClient({ apiKey: 'key-parse', baseUrl: svc.url, timeoutMs: 30_000 });
  });
  after(async () => {
    await client.close();
    await svc.close();
  });

  async function makePdf(): Promise<Buffer> {
    const pdf = await PDFDocument.create();
    pdf.setTitle('Quarterly Report');
    const font = await pdf.embedFont(StandardFonts.Helvetica);
    pdf.addPage().drawText('Revenue grew by twelve percent', { x: 50, y: 700, size: 14, font });
    pdf.addPage().drawText('Second page about costs', { x: 50, y: 700, size: 14, font });
    return Buffer.from(await pdf.save());
  }

  /** A minimal zip writer (entries stored, not compressed): enough for a .docx. */
  function zip(files: Record<string, string>): Buffer {
    const locals: Buffer[] = [];
    const centrals: Buffer[] = [];
    let offset = 0;
    for (const [name, text] of Object.entries(files)) {
      const data = Buffer.from(text, 'utf8');
      const nameBytes = Buffer.from(name, 'utf8');
      const crc = crc32(data);
      const local = Buffer.alloc(30);
      local.writeUInt32LE(0x04034b50, 0);
      local.writeUInt16LE(20, 4);
      local.writeUInt32LE(crc, 14);
      local.writeUInt32LE(data.length, 18);
      local.writeUInt32LE(data.length, 22);
      local.writeUInt16LE(nameBytes.length, 26);
      locals.push(local, nameBytes, data);
      const central = Buffer.alloc(46);
      central.writeUInt32LE(0x02014b50, 0);
      central.writeUInt16LE(20, 4);
      central.writeUInt16LE(20, 6);
      central.writeUInt32LE(crc, 16);
      central.writeUInt32LE(data.length, 20);
      central.writeUInt32LE(data.length, 24);
      central.writeUInt16LE(nameBytes.length, 28);
      central.writeUInt32LE(offset, 42);
      centrals.push(central, nameBytes);
      offset += 30 + nameBytes.length + data.length;
    }
    const dir = Buffer.concat(centrals);
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(Object.keys(files).length, 8);
    end.writeUInt16LE(Object.keys(files).length, 10);
    end.writeUInt32LE(dir.length, 12);
    end.writeUInt32LE(offset, 16);
    return Buffer.concat([...locals, dir, end]);
  }

  function makeDocx(): Buffer {
    const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
    return zip({
      '[Content_Types].xml': `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
      '_rels/.rels': `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`,
      'word/document.xml': `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${W}"><w:body>
<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Meeting Notes</w:t></w:r></w:p>
<w:p><w:r><w:t xml:space="preserve">We agreed on the </w:t></w:r><w:r><w:rPr><w:b/></w:rPr><w:t>new budget</w:t></w:r><w:r><w:t>.</w:t></w:r></w:p>
</w:body></w:document>`,
    });
  }

  async function refused(p: Promise<unknown>): Promise<WebDataApiError> {
    try {
      await p;
    } catch (err) {
      assert.ok(err instanceof WebDataApiError);
      return err;
    }
    assert.fail('expected a rejection');
  }

  describe('POST /v2/parse converts each kind it takes', () => {
    test('PDF: text of every page, title and page count; base64 without the pdf parser', async () => {
      const pdf = await makePdf();
      const res = await client.parse(pdf, { filename: 'report.pdf' });
      assert.equal(res.success, true);
      assert.match(res.data.markdown!, /Revenue grew by twelve percent/);
      assert.match(res.data.markdown!, /Second page about costs/);
      assert.equal(res.data.metadata?.title, 'Quarterly Report');
      assert.equal(res.data.metadata?.numPages, 2);
      assert.equal(res.data.metadata?.fileType, 'pdf');
      assert.equal(res.data.metadata?.sourceURL, 'report.pdf');
      assert.equal(res.data.metadata?.creditsUsed, 1);
      const raw = await client.parse(pdf, { filename: 'report.pdf', options: { parsers: [] } });
      assert.equal(raw.data.markdown, pdf.toString('base64'));
    });

    test('DOCX: headings and emphasis become markdown', async () => {
      const res = await client.parse(makeDocx(), { filename: 'notes.docx', options: { formats: ['markdown', 'html'] } });
      assert.match(res.data.markdown!, /^# Meeting Notes/m);
      assert.match(res.data.markdown!, /We agreed on the \*\*new budget\*\*\./);
      assert.match(res.data.html!, /<h1>Meeting Notes<\/h1>/);
      assert.equal(res.data.metadata?.fileType, 'docx');
      assert.equal(res.data.metadata?.title, 'Meeting Notes');
    });

    test('HTML: markdown without scripts, title, links and rawHtml on request', async () => {
      const html = '<html><head><title>Docs Home</title><script>alert(1)</script></head><body><h1>Welcome</h1><p>Read the <a href="https://example.com/guide">guide</a>.</p></body></html>';
      const res = await client.parse(Buffer.from(html), { filename: 'index.html', options: { formats: ['markdown', 'rawHtml', 'links'] } });
      assert.match(res.data.markdown!, /^# Welcome/m);
      assert.match(res.data.markdown!, /\[guide\]\(https:\/\/example\.com\/guide\)/);
      assert.doesNotMatch(res.data.markdown!, /alert/);
      assert.equal(res.data.rawHtml, html);
      assert.deepEqual(res.data.links, ['https://example.com/guide']);
      assert.equal(res.data.metadata?.title, 'Docs Home');
      assert.equal(res.data.html, undefined, 'only the formats asked for');
    });

    test('text and markdown files come back as they are; a stream works too', async () => {
      const text = '# Changelog\n\n- fixed the parser\n- added DOCX\n';
      const res = await client.parse(Buffer.from(text), { filename: 'CHANGES.md' });
      assert.equal(res.data.markdown, text.trim());
      assert.equal(res.data.metadata?.title, 'Changelog');
      const { Readable } = await import('node:stream');
      const plain = await client.parse(Readable.from([Buffer.from('plain words\n')]), { contentType: 'text/plain' });
      assert.equal(plain.data.markdown, 'plain words');
      assert.equal(plain.data.metadata?.fileType, 'text');
    });

    test('each parse is billed one credit', async () => {
      const before = svc.ledger.remaining('parse');
      await client.parse(Buffer.from('one'), { filename: 'a.txt' });
      assert.equal(svc.ledger.remaining('parse'), before - 1);
    });
  });

  describe('POST /v2/parse refuses what it cannot convert', () => {
    test('an image or an unknown binary: 415 naming the kinds it takes', async () => {
      const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
      const err = await refused(client.parse(png, { filename: 'photo.png' }));
      assert.equal(err.status, 415);
      assert.equal(err.code, 'UNSUPPORTED_FILE_TYPE');
      assert.match(err.message, /Unsupported file type "image\/png" \(photo\.png\): POST \/v2\/parse takes PDF, DOCX, HTML and text/);
      const bin = await refused(client.parse(Buffer.from([0, 1, 2, 3, 0, 255]), { filename: 'blob.bin' }));
      assert.equal(bin.status, 415);
    });

    test('a JSON body instead of multipart: 415; no file field: 400', async () => {
      const json = await fetch(`${svc.url}/v2/parse`, { method: 'POST', headers: { authorization: 'Bearer key-parse', 'content-type': 'application/json' }, body: '{}' });
      assert.equal(json.status, 415);
      assert.match(((await json.json()) as { error: string }).error, /multipart\/form-data.*PDF, DOCX, HTML and text/);
      const form = new FormData();
      form.append('options', '{}');
      const noFile = await fetch(`${svc.url}/v2/parse`, { method: 'POST', headers: { authorization: 'Bearer key-parse' }, body: form });
      assert.equal(noFile.status, 400);
      assert.match(((await noFile.json()) as { error: string }).error, /No file uploaded/);
    });

    test('a broken DOCX or PDF: 400; an unavailable format: 400', async () => {
      assert.equal((await refused(client.parse(Buffer.from('not a zip'), { filename: 'x.docx' }))).status, 400);
      assert.equal((await refused(client.parse(Buffer.from('%PDF-1.4 broken'), { filename: 'x.pdf' }))).status, 400);
      const fmt = await refused(client.parse(Buffer.from('x'), { filename: 'a.txt', options: { formats: ['screenshot'] } }));
      assert.equal(fmt.status, 400);
      assert.match(fmt.message, /not available for parse/);
    });

    test('a file over 50 MB sent past the client: 413', async () => {
      const form = new FormData();
      form.append('file', new Blob([Buffer.alloc(50 * 1024 * 1024 + 10)], { type: 'text/plain' }), 'big.txt');
      const res = await fetch(`${svc.url}/v2/parse`, { method: 'POST', headers: { authorization: 'Bearer key-parse' }, body: form });
      assert.equal(res.status, 413);
      assert.match(((await res.json()) as { error: string }).error, /50 MB/);
    });
  });
});

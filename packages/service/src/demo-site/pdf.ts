// The demo site's PDF (/files/report.pdf), made with pdf-lib. Its text is fixed so tests can look
// for it after PDF parsing; the dates are fixed so the bytes are identical on every run.

export const DEMO_PDF_TITLE = 'Demo Site Annual Report';

/** Lines of text per page. */
export const DEMO_PDF_TEXT: readonly (readonly string[])[] = [
  [DEMO_PDF_TITLE, 'Revenue grew by 42 percent in the demo year.', 'The crawler visited every page twice.'],
  ['Appendix: Methods', 'All numbers on this page are invented for testing.'],
];

export async function buildDemoPdf(): Promise<Uint8Array> {
  const { PDFDocument, StandardFonts } = await import('pdf-lib'); // only when the PDF is first asked for
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const fixed = new Date(Date.UTC(2024, 0, 1));
  doc.setTitle(DEMO_PDF_TITLE);
  doc.setAuthor('Demo Site');
  doc.setCreationDate(fixed);
  doc.setModificationDate(fixed);
  for (const lines of DEMO_PDF_TEXT) {
    const page = doc.addPage([595, 842]);
    lines.forEach((line, i) => page.drawText(line, { x: 50, y: 780 - i * 28, size: i === 0 ? 20 : 12, font }));
  }
  return doc.save();
}

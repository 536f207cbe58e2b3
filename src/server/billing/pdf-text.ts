import PDFDocument from 'pdfkit';
import { fontRuns, type Weight } from './document-fonts';

/** What the documents' writing takes: the weight and size, and for a table's cell where it goes. */
type Style = { weight: Weight; size: number };
export type CellBox = Style & { x: number; y: number; width: number; align?: 'left' | 'right' };

/** `text` as runs each in the font that has its glyphs (document-fonts.ts); an empty text still sets the font. */
function runsOf(pdf: PDFKit.PDFDocument, text: string, { weight, size }: Style) {
  const runs = fontRuns(text, weight);
  if (runs.length === 0) runs.push({ text: '', font: fontRuns(' ', weight)[0]!.font });
  return runs.map((run) => {
    // pdfkit takes a parsed fontkit font where its types say a file: parsed once per process, not per document.
    pdf.registerFont(run.font.name, run.font.font as unknown as Buffer);
    return { text: run.text, use: () => pdf.font(run.font.name).fontSize(size) };
  });
}

/** One line of `text` where the document's writing stands, then the next line. */
export function line(pdf: PDFKit.PDFDocument, text: string, weight: Weight, size: number): void {
  const runs = runsOf(pdf, text, { weight, size });
  runs.forEach((run, i) => run.use().text(run.text, { continued: i < runs.length - 1 }));
}

/** The height of `text` in a cell `width` wide, measured in the font of its first run. */
function measure(pdf: PDFKit.PDFDocument, runs: ReturnType<typeof runsOf>, text: string, width: number): number {
  runs[0]!.use();
  return pdf.heightOfString(text || ' ', { width });
}

/** The height `text` would take in a cell of `box`'s width. */
export function cellHeight(pdf: PDFKit.PDFDocument, text: string, box: Omit<CellBox, 'x' | 'y'>): number {
  return measure(pdf, runsOf(pdf, text, box), text, box.width);
}

/** `text` in a table's cell, wrapped within its width; the height it took. */
export function cell(pdf: PDFKit.PDFDocument, text: string, box: CellBox): number {
  const runs = runsOf(pdf, text, box);
  const height = measure(pdf, runs, text, box.width);
  const options = { width: box.width, align: box.align ?? 'left' };
  runs.forEach((run, i) => {
    run.use();
    const continued = i < runs.length - 1;
    if (i === 0) pdf.text(run.text, box.x, box.y, { ...options, continued });
    else pdf.text(run.text, { continued });
  });
  return height;
}

/** A new A4 document and the bytes it will have once ended. */
export function newPdf(info: PDFKit.DocumentInfo): { pdf: PDFKit.PDFDocument; bytes: Promise<Buffer> } {
  const pdf = new PDFDocument({ size: 'A4', margin: 56, info });
  const bytes = new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    pdf.on('data', (c: Buffer) => chunks.push(c));
    pdf.on('end', () => resolve(Buffer.concat(chunks)));
    pdf.on('error', reject);
  });
  return { pdf, bytes };
}

/** The seller's block at the top of every document: BILLING_COMPANY_NAME, its address and tax ID. */
export function sellerBlock(pdf: PDFKit.PDFDocument, seller: { name?: string; address?: string | null; taxId?: string | null }): void {
  line(pdf, seller.name ?? '', 'bold', 14);
  for (const l of (seller.address ?? '').split(/\r?\n/)) if (l.trim()) line(pdf, l.trim(), 'regular', 10);
  if (seller.taxId) line(pdf, `Tax ID: ${seller.taxId}`, 'regular', 10);
}

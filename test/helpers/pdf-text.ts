import { inflateSync } from 'node:zlib';
import * as fontkit from 'fontkit';
import { extractText, getDocumentProxy } from 'unpdf';

/** A PDF's text, every page joined, as a reader's "copy all" would give it. */
export async function pdfText(pdf: Uint8Array): Promise<string> {
  // pdf.js takes the bytes over: hand it a copy so the caller's buffer stays readable.
  const proxy = await getDocumentProxy(new Uint8Array(pdf));
  const { text } = await extractText(proxy, { mergePages: true });
  return text;
}

/** The document's info dictionary (Title, CreationDate, ...). */
export async function pdfInfo(pdf: Uint8Array): Promise<Record<string, unknown>> {
  const proxy = await getDocumentProxy(new Uint8Array(pdf));
  const { info } = await proxy.getMetadata();
  return info as Record<string, unknown>;
}

/**
 * How many glyphs with an outline each font embedded in the PDF holds (its FontFile2 streams,
 * inflated and read with fontkit). Text can be extracted from a glyph that draws nothing; this
 * tells the two apart.
 */
export function embeddedGlyphOutlines(pdf: Buffer): number[] {
  const raw = pdf.toString('latin1');
  const fontFiles = new Set([...raw.matchAll(/\/FontFile2 (\d+) 0 R/g)].map((m) => m[1]!));
  const counts: number[] = [];
  for (const id of fontFiles) {
    const obj = new RegExp(`(?:^|\\n)${id} 0 obj\\s*<<([^]*?)>>\\s*stream\\r?\\n`).exec(raw);
    if (!obj) throw new Error(`font file ${id} not found`);
    const length = Number(/\/Length (\d+)/.exec(obj[1]!)![1]);
    const start = obj.index + obj[0].length;
    const bytes = pdf.subarray(start, start + length);
    const font = fontkit.create(/\/FlateDecode/.test(obj[1]!) ? inflateSync(bytes) : bytes) as fontkit.Font;
    let outlined = 0;
    for (let g = 1; g < font.numGlyphs; g++) if (font.getGlyph(g).path.commands.length > 0) outlined++;
    counts.push(outlined);
  }
  return counts;
}

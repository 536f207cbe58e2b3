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

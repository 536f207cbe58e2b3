import { describe, expect, it } from 'vitest';
import { embeddedGlyphOutlines, pdfInfo, pdfText } from '../../../test/helpers/pdf-text';
import { renderDocumentPdf, type BillingDocument } from './document-pdf';

const receipt: BillingDocument = {
  number: 'NH-2026-000123',
  kind: 'receipt',
  receipt_number: null,
  amount: '25.00',
  currency: 'USD',
  provider: 'paypal',
  provider_reference: 'CAPTURE-42',
  buyer_name: 'Ada Lovelace',
  buyer_email: 'ada@example.com',
  seller: { name: 'Harbor Ltd', address: '1 Quay Street\r\n\nPortsmouth PO1 1AA', taxId: 'GB123456789' },
  issued_at: new Date('2026-11-24T23:30:00Z'),
};

describe('renderDocumentPdf', () => {
  it('shows the receipt: title, number, UTC day, seller, buyer, amount, provider and its reference', async () => {
    const pdf = await renderDocumentPdf(receipt);
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const text = await pdfText(pdf);
    for (const part of [
      'Harbor Ltd',
      '1 Quay Street',
      'Portsmouth PO1 1AA',
      'Tax ID: GB123456789',
      'Receipt',
      'Number: NH-2026-000123',
      'Issued: November 24, 2026 (UTC)',
      'Billed to',
      'Ada Lovelace',
      'ada@example.com',
      'Amount paid',
      '$25.00 USD',
      'For: NodeHarbor credit',
      'Provider: PayPal',
      'Provider reference: CAPTURE-42',
    ]) {
      expect(text).toContain(part);
    }
    expect(text).not.toContain('Corrects receipt');
    const info = await pdfInfo(pdf);
    expect(info.Title).toBe('NH-2026-000123');
    expect(info.CreationDate).toBe('D:20261124233000Z');
  });

  it('renders the same row to the same text twice', async () => {
    expect(await pdfText(await renderDocumentPdf(receipt))).toBe(await pdfText(await renderDocumentPdf(receipt)));
  });

  it('names the receipt a credit note corrects, and leaves out what the row does not have', async () => {
    const note = await pdfText(
      await renderDocumentPdf({
        ...receipt,
        number: 'NH-CN-2026-000007',
        kind: 'credit_note',
        receipt_number: 'NH-2026-000123',
        amount: '5',
        currency: 'EUR',
        provider: 'test',
        provider_reference: null,
        buyer_name: null,
        buyer_email: null,
        seller: { name: 'NodeHarbor', address: null, taxId: null },
      }),
    );
    for (const part of [
      'Credit note',
      'Number: NH-CN-2026-000007',
      'Corrects receipt NH-2026-000123',
      'Amount refunded',
      '5.00 EUR',
      'For: NodeHarbor credit taken back',
      'Provider: Test provider — no money taken',
    ]) {
      expect(note).toContain(part);
    }
    for (const absent of ['Tax ID', 'Billed to', 'Provider reference', '$']) expect(note).not.toContain(absent);
  });

  it('prints every name as it is written, in embedded fonts: Polish, Greek, Cyrillic and Chinese beside Latin', async () => {
    const names = ['Łukasz Żółć', 'Zoë Brontë', 'Ωμέγα Λτδ', 'Дмитрий Иванов', '王芳', 'Kim 金 Jae-won'];
    const pdf = await renderDocumentPdf({
      ...receipt,
      buyer_name: names.join(' · '),
      seller: { ...receipt.seller, name: 'Ωμέγα Λτδ 北京', address: 'Żeromskiego 1\n北京市' },
    });
    const text = await pdfText(pdf);
    for (const name of [...names, 'Ωμέγα Λτδ 北京', 'Żeromskiego 1', '北京市']) expect(text).toContain(name);
    // The fonts travel with the document, subset to what it uses, and each glyph draws: text can be
    // copied out of a glyph that shows nothing, so the outlines are counted too.
    const fonts = [...pdf.toString('latin1').matchAll(/\/FontName \/[A-Z]{6}\+(\S+)/g)].map((m) => m[1]);
    expect(new Set(fonts)).toEqual(new Set(['DejaVuSans', 'DejaVuSans-Bold', 'NotoSansSC-Regular', 'NotoSansSC-Bold']));
    const outlines = embeddedGlyphOutlines(pdf);
    expect(outlines.length).toBeGreaterThanOrEqual(3);
    for (const n of outlines) expect(n).toBeGreaterThan(0);
    expect(outlines.reduce((a, n) => a + n, 0)).toBeGreaterThanOrEqual(new Set([...text].filter((c) => /\S/.test(c))).size);
    expect(pdf.length).toBeLessThan(200_000);
  });
});

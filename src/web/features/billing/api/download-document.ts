import { documentFileName } from '@shared/billing-documents';
import { saveFile } from '@/lib/save-file';
import { getSupabase } from '@/lib/supabase';

/**
 * Downloads a receipt's or credit note's PDF (the billing-document function draws it from the
 * document's row) and saves it as NH-2026-000123.pdf. Throws when it does not arrive.
 */
export async function downloadDocument(number: string): Promise<void> {
  const supabase = await getSupabase();
  // supabase-js hands an application/pdf answer over as a Blob.
  const { data, error } = await supabase.functions.invoke<Blob>('billing-document', { body: { number } });
  if (error) throw error;
  if (!(data instanceof Blob)) throw new Error('The document did not arrive as a PDF');
  saveFile(data, documentFileName(number));
}

import { statementFileName, type StatementFormat } from '@shared/statements';
import { functionError } from '@/lib/function-error';
import { saveFile } from '@/lib/save-file';
import { getSupabase } from '@/lib/supabase';

/**
 * Downloads one month's statement, drawn by the billing-statement function, and saves it as
 * nodeharbor-statement-2026-10.pdf (or .csv). Throws the function's own message when it refuses.
 */
export async function downloadStatement(month: string, format: StatementFormat): Promise<void> {
  const supabase = await getSupabase();
  // supabase-js hands an application/pdf answer over as a Blob, and a text/csv one as text.
  const { data, error } = await supabase.functions.invoke<Blob | string>('billing-statement', { body: { month, format } });
  if (error) throw await functionError(error, 'Please try again.');
  // Reading the answer as text drops the byte order mark the CSV starts with, which spreadsheets need to read it as UTF-8.
  const file = typeof data === 'string' ? new Blob([data.startsWith('\uFEFF') ? data : `\uFEFF${data}`], { type: 'text/csv;charset=utf-8' }) : data;
  if (!(file instanceof Blob)) throw new Error('The statement did not arrive');
  saveFile(file, statementFileName(month, format));
}

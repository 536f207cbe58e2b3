import { getSupabase } from '@/lib/supabase';
import type { Transaction } from './get-transactions';
import { selectLedger, toTransaction, type LedgerQuery } from './get-ledger-page';

/** Rows per request while the export reads the whole filtered ledger. */
const CHUNK = 1000;

/**
 * Every row of the user's ledger that `q` selects, oldest first, read a chunk at a time. Oldest
 * first: a row written meanwhile lands after the rows already read instead of shifting them, and a
 * row seen twice is kept once.
 */
export async function getLedgerExport(userId: string, q: LedgerQuery): Promise<Transaction[]> {
  const supabase = await getSupabase();
  const rows = new Map<string, Transaction>();
  for (let offset = 0; ; offset += CHUNK) {
    const { data, error } = await selectLedger(supabase, userId, q)
      .order('created_at', { ascending: true })
      .order('id', { ascending: true })
      .range(offset, offset + CHUNK - 1);
    if (error) throw error;
    for (const row of data as Transaction[]) rows.set(row.id, toTransaction(row));
    if (data.length < CHUNK) return [...rows.values()];
  }
}

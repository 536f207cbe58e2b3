import type { DocumentKind } from '@shared/billing-documents';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { billingKeys } from '@/lib/query-keys';

export type BillingDocumentRow = {
  number: string;
  kind: DocumentKind;
  purchase_id: string;
  /** The receipt a credit note corrects. */
  receipt_number: string | null;
};

/** The receipts and credit notes of these purchases, read under RLS: only the caller's own. */
export async function getBillingDocuments(purchaseIds: string[]): Promise<BillingDocumentRow[]> {
  const supabase = await getSupabase();
  const { data, error } = await supabase
    .from('billing_documents')
    .select('number, kind, purchase_id, receipt_number')
    .in('purchase_id', purchaseIds)
    .order('number', { ascending: true });
  if (error) throw error;
  return data as BillingDocumentRow[];
}

export const billingDocumentsQueryOptions = (userId: string, purchaseIds: string[]) =>
  queryOptions({
    queryKey: billingKeys.documents(userId, purchaseIds),
    queryFn: () => getBillingDocuments(purchaseIds),
    enabled: purchaseIds.length > 0,
  });

export function useBillingDocuments(userId: string, purchaseIds: string[]) {
  return useQuery(billingDocumentsQueryOptions(userId, purchaseIds));
}

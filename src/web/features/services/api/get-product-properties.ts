import { queryOptions, useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { servicesKeys } from '@/lib/query-keys';

/**
 * A plan's key rules (its properties text), or null when the plan has none or is no longer
 * readable: the default rule then applies in the form, and the server checks the plan's own.
 */
export async function getProductProperties(productId: string): Promise<string | null> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.from('products').select('properties').eq('id', productId).maybeSingle();
  if (error) throw error;
  return (data as { properties: string | null } | null)?.properties ?? null;
}

export const productPropertiesQueryOptions = (productId: string) =>
  queryOptions({ queryKey: servicesKeys.productProperties(productId), queryFn: () => getProductProperties(productId) });

export function useProductProperties(productId: string | null) {
  return useQuery({ ...productPropertiesQueryOptions(productId ?? ''), enabled: !!productId });
}

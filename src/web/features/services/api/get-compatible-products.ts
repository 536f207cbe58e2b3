import { queryOptions, useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import type { Product } from './types';
import { servicesKeys } from '@/lib/query-keys';

/** Products that can extend a service of this base product: active and renewing (spec §5). */
export async function getCompatibleProducts(baseProductCode: string | null): Promise<Product[]> {
  if (!baseProductCode) return [];
  const supabase = await getSupabase();
  const { data, error } = await supabase
    .from('products')
    .select('*')
    .eq('is_active', true)
    .eq('base_product_code', baseProductCode)
    .not('renew_interval', 'is', null)
    .order('price', { ascending: true });
  if (error) throw error;
  return (data as Product[]).map((p) => ({ ...p, price: Number(p.price) }));
}

export const compatibleProductsQueryOptions = (baseProductCode: string | null) =>
  queryOptions({ queryKey: servicesKeys.compatibleProducts(baseProductCode), queryFn: () => getCompatibleProducts(baseProductCode) });

export function useCompatibleProducts(baseProductCode: string | null, enabled: boolean) {
  return useQuery({ ...compatibleProductsQueryOptions(baseProductCode), enabled });
}

import { queryOptions, useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import type { Product } from './types';
import { servicesKeys } from '@/lib/query-keys';

/** Active products, cheapest first (spec §7); the query client's 5/10-minute cache applies. */
export async function getProducts(): Promise<Product[]> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.from('products').select('*').eq('is_active', true).order('price', { ascending: true });
  if (error) throw error;
  return (data as Product[]).map((p) => ({ ...p, price: Number(p.price) }));
}

export const productsQueryOptions = () => queryOptions({ queryKey: servicesKeys.products(), queryFn: getProducts });

export function useProducts() {
  return useQuery(productsQueryOptions());
}

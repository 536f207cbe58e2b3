import { queryOptions, useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import type { Service } from './types';
import { servicesKeys } from '@/lib/query-keys';

/**
 * The caller's next renewal that costs something (public.get_next_payment), or null when none
 * renews; a service whose owner turned renewal off has none. A suspended service's missed renewal comes first: it is due now.
 */
export type NextPayment = { service_id: string; service_name: string; renews_at: string; amount: number; suspended: boolean };

export async function getNextPayment(): Promise<NextPayment | null> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.rpc('get_next_payment');
  if (error) throw error;
  const row = (data as (Omit<NextPayment, 'amount'> & { amount: number | string })[])[0];
  return row ? { ...row, amount: Number(row.amount) } : null;
}

/** What the answer depends on: a service created, extended, renewed, deleted, finished installing or switched to renew or not asks again. */
const fingerprint = (services: Service[]) =>
  services.map((s) => `${s.id}:${s.state ?? ''}:${s.renews_at ?? ''}:${s.product_id ?? ''}:${s.auto_renew !== false}`).join(',');

export const nextPaymentQueryOptions = (services: Service[]) =>
  queryOptions({ queryKey: servicesKeys.nextPayment(fingerprint(services)), queryFn: getNextPayment });

/** Waits for the services list, whose changes it follows. */
export function useNextPayment(services: Service[] | undefined) {
  return useQuery({ ...nextPaymentQueryOptions(services ?? []), enabled: services !== undefined });
}

import { UPTIME_DAYS_SHOWN, type RewardRule } from '@shared/node-health';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { NODE_POLL_MS } from './get-service';
import { servicesKeys } from '@/lib/query-keys';
import { utcDay } from '../uptime-days';

/** One UTC day of a node's uptime (public.service_uptime). */
export type UptimeDay = {
  day: string;
  seconds_online: number;
  seconds_observed: number;
  threshold_seconds: number | null;
  meets_threshold: boolean | null;
  reward_rule: RewardRule | null;
  /** The longest time the node stayed online without a break within the day. */
  longest_streak_seconds: number;
};

/** The last UPTIME_DAYS_SHOWN UTC days, today included; days without a row are simply absent. */
export async function getServiceUptime(serviceId: string): Promise<UptimeDay[]> {
  const supabase = await getSupabase();
  const { data, error } = await supabase
    .from('service_uptime')
    .select('day, seconds_online, seconds_observed, threshold_seconds, meets_threshold, reward_rule, longest_streak_seconds')
    .eq('service_id', serviceId)
    .gte('day', utcDay(Date.now(), UPTIME_DAYS_SHOWN - 1))
    .order('day', { ascending: true });
  if (error) throw error;
  return data as UptimeDay[];
}

export const serviceUptimeQueryOptions = (serviceId: string) =>
  queryOptions({ queryKey: servicesKeys.of(serviceId, 'uptime'), queryFn: () => getServiceUptime(serviceId), refetchInterval: NODE_POLL_MS, staleTime: 0 });

export function useServiceUptime(serviceId: string) {
  return useQuery(serviceUptimeQueryOptions(serviceId));
}

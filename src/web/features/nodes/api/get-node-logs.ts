import { queryOptions, useQuery } from '@tanstack/react-query';
import { functionError } from '@/lib/function-error';
import { getSupabase } from '@/lib/supabase';
import { nodesKeys } from '@/lib/query-keys';

const FALLBACK = 'The logs could not be loaded. Please try again.';

/**
 * The node's last lines, key redacted by the server (node-logs), for its owner or an admin.
 * Throws an Error carrying the function's own message ({ error }) when it refuses or fails.
 */
export async function getNodeLogs(serviceId: string): Promise<string[]> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.functions.invoke<{ lines: string[] }>('node-logs', { body: { service_id: serviceId } });
  if (!error) return data?.lines ?? [];
  throw await functionError(error, FALLBACK);
}

// Read when the dialog opens and on Refresh only: each read asks the engine, and the function is rate-limited.
export const nodeLogsQueryOptions = (serviceId: string) =>
  queryOptions({ queryKey: nodesKeys.logs(serviceId), queryFn: () => getNodeLogs(serviceId), staleTime: 0, gcTime: 0, retry: false });

export function useNodeLogs(serviceId: string, enabled: boolean) {
  return useQuery({ ...nodeLogsQueryOptions(serviceId), enabled });
}

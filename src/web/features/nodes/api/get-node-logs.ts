import { queryOptions, useQuery } from '@tanstack/react-query';
import { functionError } from '@/lib/function-error';
import { getSupabase } from '@/lib/supabase';
import { nodesKeys } from '@/lib/query-keys';

const FALLBACK = 'The logs could not be loaded. Please try again.';

/** What node-logs is asked beyond the service: how many lines (LOG_LINES unless said), and only those from a time on. */
type NodeLogsRead = { tail?: number; since?: string };
/** The lines, key redacted by the server; `gap` when, with `since`, more were written in between than the answer holds. */
type NodeLogs = { lines: string[]; gap: boolean };

/**
 * The node's last lines, key redacted by the server (node-logs), for its owner or an admin.
 * Throws an Error carrying the function's own message ({ error }) when it refuses or fails, or
 * `fallback` when it answered none.
 */
export async function readNodeLogs(serviceId: string, read: NodeLogsRead = {}, fallback = FALLBACK): Promise<NodeLogs> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.functions.invoke<{ lines?: string[]; gap?: boolean }>('node-logs', { body: { service_id: serviceId, ...read } });
  if (!error) return { lines: data?.lines ?? [], gap: data?.gap === true };
  throw await functionError(error, fallback);
}

// Read when the dialog opens and on Refresh only (following reads its own way): each read asks the engine, and the function is rate-limited.
export const nodeLogsQueryOptions = (serviceId: string) =>
  queryOptions({ queryKey: nodesKeys.logs(serviceId), queryFn: async () => (await readNodeLogs(serviceId)).lines, staleTime: 0, gcTime: 0, retry: false });

export function useNodeLogs(serviceId: string, enabled: boolean) {
  return useQuery({ ...nodeLogsQueryOptions(serviceId), enabled });
}

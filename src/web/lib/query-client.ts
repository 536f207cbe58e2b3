import { QueryClient } from '@tanstack/react-query';
import { QUERY_GC_MS, QUERY_STALE_MS } from '@shared/constants';

/** Spec §9: 5 minutes fresh, 10 minutes kept, no refetch on focus or reconnect. */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { staleTime: QUERY_STALE_MS, gcTime: QUERY_GC_MS, refetchOnWindowFocus: false, refetchOnReconnect: false },
    },
  });
}

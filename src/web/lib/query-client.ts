import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { QUERY_GC_MS, QUERY_STALE_MS } from '@shared/constants';
import { getSupabase } from './supabase';

/**
 * PostgREST's answer to a token whose session has ended: signed out on another device, by a
 * password change, or by account deletion. The session is over here too, so this tab signs out
 * locally and the dashboard goes back to the sign-in page instead of showing errors.
 */
function signOutIfSessionEnded(error: unknown): void {
  if ((error as { code?: unknown } | null)?.code !== 'PGRST301') return;
  void getSupabase().then((supabase) => supabase.auth.signOut({ scope: 'local' }));
}

/** Spec §9: 5 minutes fresh, 10 minutes kept, no refetch on focus or reconnect. */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({ onError: signOutIfSessionEnded }),
    mutationCache: new MutationCache({ onError: signOutIfSessionEnded }),
    defaultOptions: {
      queries: { staleTime: QUERY_STALE_MS, gcTime: QUERY_GC_MS, refetchOnWindowFocus: false, refetchOnReconnect: false },
    },
  });
}

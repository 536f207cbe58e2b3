import { useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { settingsKeys } from '@/lib/query-keys';

type DeviceSession = {
  id: string;
  created_at: string;
  last_active_at: string;
  ip: string | null;
  user_agent: string | null;
  is_current: boolean;
};

/** The signed-in user's own sessions, this device first (list_own_sessions). */
async function listSessions(): Promise<DeviceSession[]> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.rpc('list_own_sessions');
  if (error) throw new Error(error.message);
  return data as DeviceSession[];
}

export function useSessions() {
  return useQuery({ queryKey: settingsKeys.sessions(), queryFn: listSessions, staleTime: 0 });
}

import type { Incident, IncidentImpact, IncidentStatus } from '@shared/status-page';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { adminKeys } from '@/lib/query-keys';

export type StatusPageAdmin = { products: { code: string; name: string }[]; incidents: Incident[] };

/** The product families and the incidents (public.admin_status_page), never from the page's cache. */
export async function getStatusPageAdmin(): Promise<StatusPageAdmin> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.rpc('admin_status_page');
  if (error) throw error;
  return data as StatusPageAdmin;
}

export function useStatusPageAdmin() {
  return useQuery({ queryKey: adminKeys.statusPage(), queryFn: getStatusPageAdmin });
}

export type NewIncident = { title: string; productCode: string | null; impact: IncidentImpact; status: IncidentStatus; body: string };

export function useOpenIncident() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (input: NewIncident) => {
      const supabase = await getSupabase();
      const { error } = await supabase.rpc('open_status_incident', {
        p_title: input.title,
        p_product_code: input.productCode,
        p_impact: input.impact,
        p_status: input.status,
        p_body: input.body,
      });
      if (error) throw error;
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: adminKeys.statusPage() }),
  });
}

export function usePostStatusUpdate() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (input: { incidentId: number; status: IncidentStatus; body: string }) => {
      const supabase = await getSupabase();
      const { error } = await supabase.rpc('post_status_update', { p_incident_id: input.incidentId, p_status: input.status, p_body: input.body });
      if (error) throw error;
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: adminKeys.statusPage() }),
  });
}

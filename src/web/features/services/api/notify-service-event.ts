import { getSupabase } from '@/lib/supabase';
import type { Service } from './types';

/**
 * The confirmation e-mail of a creation or deletion (spec §7 send-sqs-message). A mail that
 * cannot be sent must not undo what already happened, so failures are only logged.
 */
export async function notifyServiceEvent(service: Service, userEmail: string | undefined, eventType: 'service_created' | 'service_deleted') {
  if (!userEmail) return;
  try {
    const supabase = await getSupabase();
    const { error } = await supabase.functions.invoke('send-sqs-message', { body: { serviceData: service, userEmail, eventType } });
    if (error) console.warn('send-sqs-message failed', error.message);
  } catch (e) {
    console.warn('send-sqs-message failed', e);
  }
}

import type { ContactInput } from '@shared/validation';
import { functionError } from '@/lib/function-error';
import { getSupabase } from '@/lib/supabase';

const FALLBACK = 'Something went wrong. Please try again later.';

/** Calls the contact-form function; resolves with nothing, or throws an Error carrying the message to show. */
export async function sendContactMessage(input: ContactInput): Promise<void> {
  let supabase;
  try {
    supabase = await getSupabase();
  } catch {
    throw new Error(FALLBACK);
  }
  const { error } = await supabase.functions.invoke('contact-form', { body: input });
  if (!error) return;
  // A function's own error answer ({ error }) says what was wrong; anything else gets the generic text.
  throw await functionError(error, FALLBACK);
}

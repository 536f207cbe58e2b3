import { useMutation } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';

export type Enrollment = { id: string; qrCode: string; secret: string };

/** A new, unverified TOTP factor named `friendlyName`: its QR code (an SVG data URI) and secret for the authenticator app. */
export async function enrollFactor(friendlyName: string): Promise<Enrollment> {
  const supabase = await getSupabase();
  // A setup left unfinished (cancelled, or the page left) keeps its name for a while and would refuse
  // this one as a duplicate; it can never be used, so it goes.
  const listed = await supabase.auth.mfa.listFactors();
  if (listed.error) throw listed.error;
  for (const f of listed.data.all) {
    if (f.status !== 'verified' && f.friendly_name === friendlyName) {
      const { error } = await supabase.auth.mfa.unenroll({ factorId: f.id });
      if (error) throw error;
    }
  }
  const { data, error } = await supabase.auth.mfa.enroll({ factorType: 'totp', friendlyName });
  if (error) throw error;
  return { id: data.id, qrCode: data.totp.qr_code, secret: data.totp.secret };
}

export function useEnrollFactor() {
  return useMutation({ mutationFn: enrollFactor });
}

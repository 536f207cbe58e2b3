import { useMutation } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';

export type Enrollment = { id: string; qrCode: string; secret: string };

/** A new, unverified TOTP factor: its QR code (an SVG data URI) and secret for the authenticator app. */
export async function enrollFactor(friendlyName: string): Promise<Enrollment> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.auth.mfa.enroll({ factorType: 'totp', friendlyName });
  if (error) throw error;
  return { id: data.id, qrCode: data.totp.qr_code, secret: data.totp.secret };
}

export function useEnrollFactor() {
  return useMutation({ mutationFn: enrollFactor });
}

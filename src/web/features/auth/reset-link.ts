export type ResetLink = { ok: true; accessToken: string; refreshToken: string } | { ok: false; error: string | null };

/** Reads the reset e-mail link's fragment (spec §2, §5): both tokens and type=recovery, else invalid. */
export function parseResetLink(hash: string): ResetLink {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  const error = p.get('error_description') ?? p.get('error');
  const accessToken = p.get('access_token');
  const refreshToken = p.get('refresh_token');
  if (error || !accessToken || !refreshToken || p.get('type') !== 'recovery') return { ok: false, error };
  return { ok: true, accessToken, refreshToken };
}

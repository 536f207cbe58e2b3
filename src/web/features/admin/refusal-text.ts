/**
 * What to tell the admin when an action fails: the server's refusal in its own words (supabase-js
 * hands it over as a plain object with an SQLSTATE code, not an Error), else the app's fallback.
 */
export function refusalText(e: unknown): string {
  const err = e as { code?: unknown; message?: unknown } | null;
  return err && typeof err.code === 'string' && err.code !== '' && typeof err.message === 'string' && err.message !== '' ? err.message : 'An unknown error occurred';
}

/**
 * The server's own refusal of an rpc or query, or null. supabase-js hands it over as a plain object
 * with an SQLSTATE `code`, not an Error; a request that never reached the server has an empty code
 * and only the browser's wording ("Failed to fetch"), which is no refusal.
 */
export function serverRefusal(e: unknown): string | null {
  const err = e as { code?: unknown; message?: unknown } | null;
  return typeof err?.code === 'string' && err.code !== '' && typeof err.message === 'string' && err.message !== '' ? err.message : null;
}

/**
 * What to tell a person about a failed call (spec §8): the server's own message, or "An unknown
 * error occurred" when there is none to give. An Error from a request that never reached the
 * server (status 0 in supabase-js) carries only the browser's wording too.
 */
export function errorText(e: unknown): string {
  if (e instanceof Error && e.message && (e as { status?: unknown }).status !== 0) return e.message;
  return (!(e instanceof Error) && serverRefusal(e)) || 'An unknown error occurred';
}

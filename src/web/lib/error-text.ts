/**
 * What to tell a person about a failed call (spec §8): the server's own message, or "An unknown
 * error occurred" when there is none to give. A request that never reached the server (status 0
 * in supabase-js) carries only the browser's wording, such as "Failed to fetch", which is none.
 */
export function errorText(e: unknown): string {
  if (e instanceof Error && e.message && (e as { status?: unknown }).status !== 0) return e.message;
  return 'An unknown error occurred';
}

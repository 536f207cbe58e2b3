import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/**
 * Functions answer errors as JSON: supabase-js hands a non-2xx Response to the app as
 * `error.context`, and the app reads the message with `await error.context.json()`.
 */
export function fail(c: Context, status: ContentfulStatusCode, error: string, extra: Record<string, unknown> = {}) {
  return c.json({ error, ...extra }, status);
}

export type BodyResult = { body: Record<string, unknown> } | { error: string };

/** The JSON object in the body, or the message of a 400 when there is none. */
export async function jsonBody(c: Context): Promise<BodyResult> {
  let value: unknown;
  try {
    value = (await c.req.json()) as unknown;
  } catch {
    return { error: 'Invalid JSON body' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { error: 'Invalid JSON body' };
  // PostgreSQL text cannot hold U+0000: refuse it here rather than fail in the database.
  if (hasNul(value)) return { error: 'The request must not contain NUL (\\u0000) characters' };
  return { body: value as Record<string, unknown> };
}

function hasNul(v: unknown): boolean {
  if (typeof v === 'string') return v.includes('\u0000');
  if (Array.isArray(v)) return v.some(hasNul);
  if (typeof v === 'object' && v !== null) return Object.entries(v).some(([k, x]) => k.includes('\u0000') || hasNul(x));
  return false;
}

import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/**
 * Functions answer errors as JSON: supabase-js hands a non-2xx Response to the app as
 * `error.context`, and the app reads the message with `await error.context.json()`.
 */
export function fail(c: Context, status: ContentfulStatusCode, error: string, extra: Record<string, unknown> = {}) {
  return c.json({ error, ...extra }, status);
}

/** The JSON body, or undefined when it is not a JSON object. */
export async function jsonBody(c: Context): Promise<Record<string, unknown> | undefined> {
  try {
    const v = (await c.req.json()) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

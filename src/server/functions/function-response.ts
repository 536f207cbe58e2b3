import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { BODY_NOT_RECEIVED, containsNul, JSON_TOO_DEEP, parseJsonBody, readBodyText } from '../http/json-body';

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
  const text = await readBodyText(c);
  if (text === undefined) return { error: BODY_NOT_RECEIVED };
  const parsed = parseJsonBody(text);
  if (!parsed.ok) return { error: parsed.reason === 'too-deep' ? JSON_TOO_DEEP : 'Invalid JSON body' };
  const value = parsed.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { error: 'Invalid JSON body' };
  // PostgreSQL text cannot hold U+0000: refuse it here rather than fail in the database.
  if (containsNul(value)) return { error: 'The request must not contain NUL (\\u0000) characters' };
  return { body: value as Record<string, unknown> };
}


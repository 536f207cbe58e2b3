import { Hono } from 'hono';
import type { AppDeps } from '../deps';

/** PostgREST-compatible subset under /rest/v1 (supabase-wire §4). */
export function restRoutes(_deps: AppDeps): Hono {
  return new Hono();
}

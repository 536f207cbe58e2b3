import { Hono } from 'hono';
import type { AppDeps } from '../deps';

/** GoTrue-compatible endpoints under /auth/v1 (supabase-wire §2–3). */
export function authRoutes(_deps: AppDeps): Hono {
  return new Hono();
}

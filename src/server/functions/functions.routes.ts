import { Hono } from 'hono';
import type { AppDeps } from '../deps';

/** /functions/v1/<name>: one file per function. */
export function functionRoutes(_deps: AppDeps): Hono {
  return new Hono();
}

import type { MiddlewareHandler } from 'hono';
import type { Keys } from '../auth/tokens';

/**
 * What Supabase's gateway does before /auth/v1 and /rest/v1: an `apikey` header (or query
 * parameter) holding one of the project's keys is required. Bodies as Kong sends them.
 */
export function requireApiKey(keys: Keys): MiddlewareHandler {
  const valid = new Set([keys.anonKey, keys.serviceRoleKey]);
  return async (c, next) => {
    if (c.req.method === 'OPTIONS') return next();
    const key = c.req.header('apikey') ?? c.req.query('apikey');
    if (!key) {
      return c.json({ message: 'No API key found in request', hint: 'No `apikey` request header or url param was found.' }, 401);
    }
    if (!valid.has(key)) {
      return c.json({ message: 'Invalid API key', hint: 'Double check your Supabase `anon` or `service_role` API key.' }, 401);
    }
    await next();
  };
}

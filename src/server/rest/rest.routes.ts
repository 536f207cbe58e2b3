import { Hono, type Context } from 'hono';
import type { AppDeps } from '../deps';
import type { DbRole } from '../db/with-claims';
import { requireApiKey } from '../http/api-key';
import { CallerError, getCaller, isEndedSession } from '../http/caller';
import { requestDeps } from '../http/share-by-caller';
import { RestError, toRestError } from './errors';
import { executeRpc, executeTable, type RestResult } from './execute';
import { contentType } from './media-types';

const JSON_TYPE = 'application/json; charset=utf-8';

/** How PostgREST answers a token it refuses (supabase-wire §4.3): 401 with the reason in WWW-Authenticate. */
function callerError(e: CallerError): RestError {
  if (e.code === 'role') return new RestError(401, '22023', e.message, null, null, { 'WWW-Authenticate': 'Bearer' });
  const description = e.message.replace(/"/g, "'");
  return new RestError(401, e.code, e.message, null, null, {
    'WWW-Authenticate': `Bearer error="invalid_token", error_description="${description}"`,
  });
}

function errorResponse(c: Context, e: RestError): Response {
  return c.body(JSON.stringify(e.body()), e.status as 400, {
    'Content-Type': JSON_TYPE,
    'Proxy-Status': `PostgREST; error=${e.code}`,
    ...e.headers,
  });
}

function okResponse(c: Context, r: RestResult): Response {
  const headers: Record<string, string> = { ...r.headers };
  // A plan names its own type.
  if (r.body !== null) headers['Content-Type'] ??= contentType(r.shape);
  if (c.req.method === 'HEAD' || r.body === null) return c.body(null, r.status as 200, headers);
  return c.body(r.body, r.status as 200, headers);
}

/**
 * PostgREST-compatible subset under /rest/v1 (supabase-wire §4): tables and views of schema
 * `public`, and its functions under /rpc. Every request runs in one transaction as the caller's
 * role; every failure is answered in PostgREST's error shape.
 */
export function restRoutes(deps: AppDeps): Hono {
  const app = new Hono();
  app.use('*', requireApiKey(deps.keys));

  const handle = (run: typeof executeTable, param: 'fn' | 'table') => async (c: Context) => {
    let role: DbRole = 'anon';
    try {
      const caller = await getCaller(c, deps.keys).catch((e: unknown) => {
        throw e instanceof CallerError ? callerError(e) : e;
      });
      role = caller.role;
      return okResponse(c, await run(requestDeps(c, deps), c, caller, c.req.param(param)!));
    } catch (e) {
      // A token of an ended session is refused as a bad token, so supabase-js treats it as one.
      if (isEndedSession(e)) return errorResponse(c, callerError(new CallerError(e.message, 'PGRST301')));
      return errorResponse(c, toRestError(e, role));
    }
  };

  app.all('/rpc/:fn', handle(executeRpc, 'fn'));
  app.all('/:table', handle(executeTable, 'table'));
  app.all('*', (c) => errorResponse(c, new RestError(404, 'PGRST125', 'Invalid path specified in request URL')));
  return app;
}

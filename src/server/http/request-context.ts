import { randomUUID } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';

/** An id a proxy (or the client) sent that is kept: short and plain, as hono/request-id allows. */
const PLAIN_ID = /^[\w=-]{1,128}$/;

/**
 * Gives each request an id: the X-Request-Id a proxy (or the client) sent, when it is short and
 * plain ([A-Za-z0-9_=-]), or a new UUID. It is answered in X-Request-Id, written on the request's
 * log line, and stored with each job the request's SQL enqueues (nodeharbor.jobs.request_id).
 * Passed on explicitly (requestIdOf), not through AsyncLocalStorage: on Node 20 its promise hooks,
 * once enabled, cost every request about 300k instructions, 15 % of a REST read (bench/README.md,
 * issue 40).
 */
export const requestIds: MiddlewareHandler = async (c, next) => {
  const sent = c.req.header('x-request-id');
  const id = sent !== undefined && PLAIN_ID.test(sent) ? sent : randomUUID();
  c.set('requestId', id);
  c.header('X-Request-Id', id);
  await next();
};

/** The id requestIds gave the request. */
export function requestIdOf(c: Context): string | undefined {
  return c.get('requestId') as string | undefined;
}

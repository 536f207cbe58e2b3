import { AsyncLocalStorage } from 'node:async_hooks';
import type { MiddlewareHandler } from 'hono';
import { requestId } from 'hono/request-id';

/** What every log line of a request or a job carries, wherever in the code it is written. */
export type LogContext = { requestId?: string; job?: number };

const store = new AsyncLocalStorage<LogContext>();

/** The request or job being served here, if any. */
export function currentLogContext(): LogContext | undefined {
  return store.getStore();
}

/** Runs `fn` as part of `context`: a job carries the id of the request that enqueued it. */
export function withLogContext<T>(context: LogContext, fn: () => T): T {
  return store.run(context, fn);
}

const assignId = requestId({ limitLength: 128 });

/**
 * Gives each request an id: the X-Request-Id a proxy (or the client) sent, when it is short and
 * plain ([A-Za-z0-9_=-]), or a new UUID. It is answered in X-Request-Id, written on each log
 * line of the request, and stored with each job the request enqueues (nodeharbor.jobs.request_id).
 */
export const requestIds: MiddlewareHandler = (c, next) => assignId(c, () => withLogContext({ requestId: c.get('requestId') as string }, next));

import type { MiddlewareHandler } from 'hono';
import type { Logger } from './logger';
import { requestIdOf } from './request-context';

/**
 * One line per request. Only the path is logged, never the query string, headers or body:
 * those carry tokens (verify links), API keys and e-mail addresses.
 */
export function requestLog(logger: Logger): MiddlewareHandler {
  return async (c, next) => {
    const start = performance.now();
    await next();
    logger.info('request', {
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      ms: Math.round((performance.now() - start) * 10) / 10,
      requestId: requestIdOf(c),
    });
  };
}

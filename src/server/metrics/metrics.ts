import type { Context, Handler, MiddlewareHandler } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import { routePath } from 'hono/route';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { AppDeps } from '../deps';
import { clusterMetricsSource } from '../cluster/cluster-metrics';
import { databaseGauges } from './database-metrics';
import { metricsAccess } from './metrics-access';

/** Methods counted by name; any other is counted as OTHER, so a client cannot add labels. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The route label of every unknown path: a 404 answered by a catch-all (`*`, `/rest/v1/*`) or by no route. */
export const UNMATCHED = 'unmatched';

/** The pattern of the route that answered (/rest/v1/:table), never the path: the labels stay few. */
function routeLabel(c: Context): string {
  const pattern = routePath(c);
  return !pattern || (c.res.status === 404 && pattern.endsWith('*')) ? UNMATCHED : pattern;
}

export type Metrics = {
  /** Counts and times every request under its route's pattern; first in the app, to time all of it. */
  countRequests: MiddlewareHandler;
  /** GET /metrics: Prometheus' text format, to those metricsAccess allows. */
  serve: Handler;
};

/**
 * The app's metrics in registries of its own (several apps in one test process each count their
 * own), with prom-client's process metrics (memory, CPU, event-loop lag, handles). What each
 * process counts is in `registry`; what is read from the database, the same for every process,
 * in `shared`. In a cluster the first is summed over the HTTP processes and the second read once.
 */
export function createMetrics(deps: Pick<AppDeps, 'config' | 'db' | 'logger' | 'cluster'>): Metrics {
  const { config, db, logger } = deps;
  const registry = new Registry();
  const shared = new Registry();
  collectDefaultMetrics({ register: registry });
  const ofProcess = deps.cluster ? clusterMetricsSource(registry) : () => registry.metrics();
  const registers = [registry];
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({
    name: 'nodeharbor_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames,
    registers,
  });
  const duration = new Histogram({
    name: 'nodeharbor_http_request_duration_seconds',
    help: 'Time to answer an HTTP request (to its response headers), by method, route pattern and status',
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const database = databaseGauges({ process: registry, shared }, db, logger);

  return {
    async countRequests(c, next) {
      const start = performance.now();
      await next();
      const labels = {
        method: METHODS.has(c.req.method) ? c.req.method : 'OTHER',
        route: routeLabel(c),
        status: String(c.res.status),
      };
      requests.inc(labels);
      duration.observe(labels, (performance.now() - start) / 1000);
    },
    async serve(c) {
      let peer: string | undefined;
      try {
        peer = getConnInfo(c).remote.address;
      } catch {
        peer = undefined;
      }
      const forwarded = ['x-forwarded-for', 'forwarded', 'x-real-ip'].some((h) => c.req.header(h) !== undefined);
      const access = metricsAccess({ peer, authorization: c.req.header('authorization'), forwarded }, config.metricsToken, config.trustProxy);
      if (!access.allowed) {
        const challenge: Record<string, string> = access.status === 401 ? { 'WWW-Authenticate': 'Bearer realm="metrics"' } : {};
        return c.json({ message: access.message }, access.status, challenge);
      }
      await database.refresh();
      const [processes, fromDatabase] = await Promise.all([ofProcess(), shared.metrics()]);
      return c.body(`${processes}\n${fromDatabase}`, 200, { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' });
    },
  };
}

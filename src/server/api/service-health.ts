import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { LOG_LINES } from '../../shared/node-health';
import { LOG_TAIL_MAX, nodeLogsMessages } from '../../shared/node-logs';
import { messages } from '../../shared/validation';
import type { AppDeps } from '../deps';
import { requestDeps } from '../http/share-by-caller';
import { hitRateLimit } from '../http/rate-limit';
import { LOG_DOWNLOAD_LIMIT, LOG_READ_LIMIT, logDownloadKey, logReadKey, readNodeLogs } from '../provisioning/read-node-logs';
import { ApiError, errorResponses } from './schemas';
import { asTokenOwner, requires, type ApiCaller } from './token-auth';

/** How far back uptime may be asked for: what the monitor keeps (private.node_uptime, 90 days). */
const UPTIME_DAYS_MAX = 90;

const ServiceId = z.object({ id: z.string().uuid() });
const json = <T extends z.ZodType>(schema: T) => ({ content: { 'application/json': { schema } } });
const notFound = { 404: { description: 'No such service of yours', ...json(ApiError) } };

const Logs = z.object({ lines: z.array(z.string()) }).openapi('Logs');
const UptimeDay = z
  .object({
    day: z.string().openapi({ example: '2026-11-27', description: 'A UTC day' }),
    seconds_online: z.number().int(),
    seconds_observed: z.number().int().openapi({ description: 'Seconds the monitor watched the node' }),
    longest_streak_seconds: z.number().int(),
    meets_threshold: z.boolean().nullable().openapi({ description: "Whether the day's online time reaches the plan's reward threshold" }),
  })
  .openapi('UptimeDay');
const Uptime = z.object({ days: z.array(UptimeDay) }).openapi('Uptime');

const logsRoute = createRoute({
  method: 'get',
  path: '/services/{id}/logs',
  summary: "Read a node's logs",
  tags: ['Nodes'],
  description: `The node's last lines, its key redacted. At most ${LOG_READ_LIMIT.max} reads a minute per user, and ${LOG_DOWNLOAD_LIMIT.max} of more than ${LOG_LINES} lines. Required scope: services:read.`,
  ...requires('services:read'),
  request: {
    params: ServiceId,
    query: z.object({ tail: z.coerce.number().int().min(1).max(LOG_TAIL_MAX).default(LOG_LINES).openapi({ description: 'How many lines' }) }),
  },
  responses: {
    200: { description: 'The lines, oldest first', ...json(Logs) },
    ...notFound,
    ...errorResponses,
    502: { description: 'The node host did not answer', ...json(ApiError) },
  },
});

const uptimeRoute = createRoute({
  method: 'get',
  path: '/services/{id}/uptime',
  summary: "Read a node's uptime",
  tags: ['Nodes'],
  description: 'Online time per UTC day, as the monitor measured it, newest first. Required scope: services:read.',
  ...requires('services:read'),
  request: {
    params: ServiceId,
    query: z.object({ days: z.coerce.number().int().min(1).max(UPTIME_DAYS_MAX).default(30).openapi({ description: 'How many days back' }) }),
  },
  responses: { 200: { description: 'The days', ...json(Uptime) }, ...notFound, ...errorResponses },
});

/**
 * The refusal when the user is past a limit of log reads, counted with the dashboard's (a read of
 * more than LOG_LINES lines is a download, and counts twice).
 */
async function logLimit(deps: Pick<AppDeps, 'config' | 'db'>, userId: string, tail: number): Promise<{ wait: number; message: string } | undefined> {
  if (!deps.config.rateLimitsEnabled) return undefined;
  const wait = await hitRateLimit(deps.db, logReadKey(userId), LOG_READ_LIMIT);
  if (wait > 0) return { wait, message: nodeLogsMessages.tooManyReads(wait) };
  if (tail <= LOG_LINES) return undefined;
  const waitLong = await hitRateLimit(deps.db, logDownloadKey(userId), LOG_DOWNLOAD_LIMIT);
  return waitLong > 0 ? { wait: waitLong, message: nodeLogsMessages.tooManyDownloads(waitLong) } : undefined;
}

export function serviceHealthRoutes(appDeps: Pick<AppDeps, 'config' | 'db' | 'keys' | 'logger'>) {
  const app = new OpenAPIHono<{ Variables: { apiCaller: ApiCaller } }>();

  app.openapi(logsRoute, async (c) => {
    const deps = requestDeps(c, appDeps);
    const { id } = c.req.valid('param');
    const { tail } = c.req.valid('query');
    const { userId } = c.get('apiCaller');
    const limited = await logLimit(deps, userId, tail);
    if (limited) {
      c.header('Retry-After', String(limited.wait));
      return c.json({ code: 'rate_limited', message: limited.message }, 429);
    }
    // The key is read here, with the keys the server holds, only to redact it.
    const { rows } = await deps.db.query<{ key: string | null }>(
      `select private.decrypt_with_either_key(s.api_key_encrypted) as key
         from private.services s where s.id = $1 and s.user_id = $2 and s.state <> 'deleted'`,
      [id, userId],
    );
    const svc = rows[0];
    if (!svc) return c.json({ code: 'not_found', message: messages.serviceNotFound }, 404);
    const lines = await readNodeLogs(deps, id, svc.key, tail);
    if (!lines) return c.json({ code: 'node_unreachable', message: nodeLogsMessages.unreadable }, 502);
    return c.json({ lines }, 200);
  });

  app.openapi(uptimeRoute, async (c) => {
    const deps = requestDeps(c, appDeps);
    const { id } = c.req.valid('param');
    const { days } = c.req.valid('query');
    const found = await asTokenOwner(
      deps,
      c,
      async (tx) => {
        const own = await tx.query(`select 1 from public.services where id = $1 and not is_deleted`, [id]);
        if (own.rowCount === 0) return undefined;
        const r = await tx.query<z.infer<typeof UptimeDay>>(
          `select day::text, seconds_online, seconds_observed, longest_streak_seconds, meets_threshold
             from public.service_uptime
            where service_id = $1 and day > (now() at time zone 'UTC')::date - $2::integer
            order by day desc`,
          [id, days],
        );
        return r.rows;
      },
      { readOnly: true },
    );
    if (!found) return c.json({ code: 'not_found', message: messages.serviceNotFound }, 404);
    return c.json({ days: found }, 200);
  });

  return app;
}

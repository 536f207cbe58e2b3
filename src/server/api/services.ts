import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import type { ApiCaller } from './token-auth';
import { asTokenOwner, requires } from './token-auth';
import type { AppDeps } from '../deps';
import { requestDeps } from '../http/share-by-caller';
import { ApiError, errorResponses } from './schemas';
import type { ServiceState } from '../../shared/constants';
import { messages } from '../../shared/validation';

export const Service = z
  .object({
    id: z.string().uuid(),
    name: z.string(),
    description: z.string().nullable(),
    product_id: z.string().nullable(),
    state: z.enum(['installing', 'active', 'failed', 'suspended', 'expired', 'deleting'] as const satisfies readonly ServiceState[]),
    created_at: z.string(),
    renews_at: z.string().nullable(),
    expired: z.boolean(),
    is_installed: z.boolean(),
  })
  .openapi('Service');
export const ServiceList = z.object({ services: z.array(Service) }).openapi('ServiceList');

const listRoute = createRoute({
  method: 'get',
  path: '/services',
  summary: 'List services',
  tags: ['Services'],
  description: 'Your services, newest first. Required scope: services:read.',
  ...requires('services:read'),
  responses: { 200: { description: 'The services', content: { 'application/json': { schema: ServiceList } } }, ...errorResponses },
});

const getRoute = createRoute({
  method: 'get',
  path: '/services/{id}',
  summary: 'Get a service',
  tags: ['Services'],
  description: 'One of your services. Required scope: services:read.',
  ...requires('services:read'),
  request: { params: z.object({ id: z.string().uuid() }) },
  responses: {
    200: { description: 'The service', content: { 'application/json': { schema: Service } } },
    404: { description: 'No such service of yours', content: { 'application/json': { schema: ApiError } } },
    ...errorResponses,
  },
});

type Row = z.infer<typeof Service>;
/** What the API shows of a service: never its key, which is write-only. */
export const SERVICE_COLUMNS = `id, name, description, product_id::text, state, to_json(created_at) #>> '{}' as created_at,
  to_json(renews_at) #>> '{}' as renews_at, expired, is_installed`;

export function serviceRoutes(appDeps: Pick<AppDeps, 'db'>) {
  const app = new OpenAPIHono<{ Variables: { apiCaller: ApiCaller } }>();
  app.openapi(listRoute, async (c) => {
    const deps = requestDeps(c, appDeps);
    // RLS restricts the rows to the token's owner, as it does for the dashboard's query.
    const rows = await asTokenOwner(
      deps,
      c,
      (tx) => tx.query<Row>(`select ${SERVICE_COLUMNS} from public.services where not is_deleted order by created_at desc`),
      {
        readOnly: true,
      },
    );
    return c.json({ services: rows.rows }, 200);
  });
  app.openapi(getRoute, async (c) => {
    const deps = requestDeps(c, appDeps);
    const { id } = c.req.valid('param');
    const rows = await asTokenOwner(deps, c, (tx) => tx.query<Row>(`select ${SERVICE_COLUMNS} from public.services where id = $1 and not is_deleted`, [id]), {
      readOnly: true,
    });
    const row = rows.rows[0];
    // Another user's service is invisible under RLS, so it answers as a missing one.
    if (!row) return c.json({ code: 'not_found', message: messages.serviceNotFound }, 404);
    return c.json(row, 200);
  });
  return app;
}

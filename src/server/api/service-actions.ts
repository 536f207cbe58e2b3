import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { POWER_ACTIONS } from '../../shared/power-actions';
import type { Queryable } from '../db/database';
import type { AppDeps } from '../deps';
import { requestDeps } from '../http/share-by-caller';
import { errorResponses, serviceRefusals } from './schemas';
import { Service, SERVICE_COLUMNS } from './services';
import { asTokenOwner, requires, type ApiCaller } from './token-auth';

/**
 * The writes: each calls the SQL function the dashboard calls, as the token's owner, so the
 * rules, the charge, the events and the jobs are the database's, once. Their refusals are thrown,
 * and answered in the function's own words (errors.ts, api.routes.ts). The key is write-only: no
 * answer carries it.
 */

const ServiceId = z.object({ id: z.string().uuid() });
/** Text with a bound the database's own checks come after, so nothing large reaches them; PostgreSQL's text holds no NUL. */
const text = (max: number) =>
  z
    .string()
    .max(max)
    .refine((v) => !v.includes('\u0000'), 'must not contain NUL characters');
const Name = text(64).openapi({ description: '3–16 letters, digits, hyphens or underscores' });
const ApiKey = text(1024).pipe(z.string().min(1)).openapi({ description: "The node's API or licence key, as the plan asks for it. Write-only." });
const Description = text(500).nullable();

const CreateService = z
  .object({ name: Name, product_id: z.string().uuid(), api_key: ApiKey, description: Description.optional() })
  .openapi('CreateService', { example: { name: 'my-node', product_id: '00000000-0000-4000-8000-000000000001', api_key: 'YOUR-NODE-KEY' } });
const Charged = { charged: z.number().openapi({ description: 'USD taken from the balance' }) };
const CreatedService = Service.extend({
  ...Charged,
  reused: z.boolean().openapi({ description: 'An unused paid service was taken instead of charging' }),
}).openapi('CreatedService');
const UpdateService = z
  .object({ name: Name.optional(), description: Description.optional(), api_key: ApiKey.optional() })
  .refine((u) => Object.keys(u).length > 0, 'Send at least one of name, description and api_key')
  .openapi('UpdateService', { example: { name: 'my-node-2' } });
const ExtendService = z
  .object({ product_id: z.string().uuid(), months: z.number().int().min(1).max(12) })
  .openapi('ExtendService', { example: { product_id: '00000000-0000-4000-8000-000000000001', months: 3 } });
const ExtendedService = Service.extend({ ...Charged, months: z.number().int() }).openapi('ExtendedService');
const PowerAction = z.object({ action: z.enum(POWER_ACTIONS) }).openapi('PowerAction', { example: { action: 'restart' } });
const PoweredService = z
  .object({ id: z.string().uuid(), name: z.string(), state: Service.shape.state, stopped_at: z.string().nullable() })
  .openapi('PoweredService');

const json = <T extends z.ZodType>(schema: T) => ({ content: { 'application/json': { schema } } });

const createRouteDef = createRoute({
  method: 'post',
  path: '/services',
  summary: 'Create a service',
  tags: ['Services'],
  description:
    'Start a service: charges the plan from your balance, or takes an unused paid service of the plan. A name you already use is refused, so a retried request is not charged twice. Required scope: services:write.',
  ...requires('services:write'),
  request: { body: { required: true, ...json(CreateService) } },
  responses: {
    201: { description: 'Created; its node is being installed', ...json(CreatedService) },
    400: serviceRefusals[400],
    ...errorResponses,
  },
});

const updateRouteDef = createRoute({
  method: 'patch',
  path: '/services/{id}',
  summary: 'Update a service',
  tags: ['Services'],
  description: 'Rename a service, change its description, or give it a new key (the node is restarted with it). Required scope: services:write.',
  ...requires('services:write'),
  request: { params: ServiceId, body: { required: true, ...json(UpdateService) } },
  responses: { 200: { description: 'Updated', ...json(Service) }, ...serviceRefusals, ...errorResponses },
});

const extendRouteDef = createRoute({
  method: 'post',
  path: '/services/{id}/extend',
  summary: 'Extend a service',
  tags: ['Services'],
  description: "Pay for more months ahead, from your balance; a suspended service's node starts again. Required scope: services:write.",
  ...requires('services:write'),
  request: { params: ServiceId, body: { required: true, ...json(ExtendService) } },
  responses: { 200: { description: 'Extended', ...json(ExtendedService) }, ...serviceRefusals, ...errorResponses },
});

const deleteRouteDef = createRoute({
  method: 'delete',
  path: '/services/{id}',
  summary: 'Delete a service',
  tags: ['Services'],
  description: 'Delete a service: its node is stopped and removed. Nothing is refunded. Required scope: services:write.',
  ...requires('services:write'),
  request: { params: ServiceId },
  responses: { 202: { description: 'Being deleted', ...json(Service) }, ...serviceRefusals, ...errorResponses },
});

const powerRouteDef = createRoute({
  method: 'post',
  path: '/services/{id}/power',
  summary: 'Restart, stop or start a node',
  tags: ['Nodes'],
  description: 'Restart, stop or start the node (at most 10 an hour per service). Required scope: services:write.',
  ...requires('services:write'),
  request: { params: ServiceId, body: { required: true, ...json(PowerAction) } },
  responses: { 202: { description: 'Accepted; the node follows within a minute', ...json(PoweredService) }, ...serviceRefusals, ...errorResponses },
});

type Row = z.infer<typeof Service>;
const serviceRow = async (tx: Queryable, id: string): Promise<Row> =>
  (await tx.query<Row>(`select ${SERVICE_COLUMNS} from public.services where id = $1`, [id])).rows[0]!;

export function serviceActionRoutes(appDeps: Pick<AppDeps, 'db'>) {
  const app = new OpenAPIHono<{ Variables: { apiCaller: ApiCaller } }>();

  app.openapi(createRouteDef, async (c) => {
    const deps = requestDeps(c, appDeps);
    const body = c.req.valid('json');
    const r = await asTokenOwner(deps, c, async (tx) => {
      const made = await tx.query<{ r: { id: string; charged: string | number; reused: boolean } }>(
        `select public.create_service_securely($1, $2, $3, $4::uuid) as r`,
        [body.name, body.description ?? null, body.api_key, body.product_id],
      );
      const { id, charged, reused } = made.rows[0]!.r;
      return { ...(await serviceRow(tx, id)), charged: Number(charged), reused };
    });
    return c.json(r, 201);
  });

  app.openapi(updateRouteDef, async (c) => {
    const deps = requestDeps(c, appDeps);
    const { id } = c.req.valid('param');
    const updates = c.req.valid('json');
    const r = await asTokenOwner(deps, c, async (tx) => {
      await tx.query(`select public.manage_service_operation($1, 'update', $2::jsonb)`, [id, JSON.stringify(updates)]);
      return serviceRow(tx, id);
    });
    return c.json(r, 200);
  });

  app.openapi(extendRouteDef, async (c) => {
    const deps = requestDeps(c, appDeps);
    const { id } = c.req.valid('param');
    const { product_id, months } = c.req.valid('json');
    const r = await asTokenOwner(deps, c, async (tx) => {
      const ext = await tx.query<{ r: { charged: string | number; months: number } }>(`select public.extend_service_expiration($1, $2, $3) as r`, [
        id,
        product_id,
        months,
      ]);
      const { charged } = ext.rows[0]!.r;
      return { ...(await serviceRow(tx, id)), charged: Number(charged), months };
    });
    return c.json(r, 200);
  });

  app.openapi(deleteRouteDef, async (c) => {
    const deps = requestDeps(c, appDeps);
    const { id } = c.req.valid('param');
    const r = await asTokenOwner(deps, c, async (tx) => {
      await tx.query(`select public.manage_service_operation($1, 'delete')`, [id]);
      return serviceRow(tx, id);
    });
    return c.json(r, 202);
  });

  app.openapi(powerRouteDef, async (c) => {
    const deps = requestDeps(c, appDeps);
    const { id } = c.req.valid('param');
    const { action } = c.req.valid('json');
    const r = await asTokenOwner(deps, c, async (tx) => {
      const p = await tx.query<{ r: z.infer<typeof PoweredService> }>(`select public.service_power_action($1, $2) as r`, [id, action]);
      return p.rows[0]!.r;
    });
    return c.json(r, 202);
  });

  return app;
}

import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import type { ApiCaller } from './token-auth';
import { asTokenOwner, requireScope } from './token-auth';
import type { AppDeps } from '../deps';
import { errorResponses } from './schemas';

export const Balance = z.object({ balance: z.number() }).openapi('Balance');

const balanceRoute = createRoute({
  method: 'get',
  path: '/balance',
  description: 'Your credit balance in USD. Required scope: billing:read.',
  'x-required-scope': 'billing:read',
  middleware: [requireScope('billing:read')] as const,
  responses: { 200: { description: 'The balance', content: { 'application/json': { schema: Balance } } }, ...errorResponses },
});

export function billingRoutes(deps: Pick<AppDeps, 'db'>) {
  const app = new OpenAPIHono<{ Variables: { apiCaller: ApiCaller } }>();
  app.openapi(balanceRoute, async (c) => {
    const r = await asTokenOwner(deps, c, (tx) => tx.query<{ balance: string }>(`select balance::text from public.user_credits`), { readOnly: true });
    return c.json({ balance: Number(r.rows[0]?.balance ?? 0) }, 200);
  });
  return app;
}

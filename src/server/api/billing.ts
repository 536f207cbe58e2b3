import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { TRANSACTION_TYPES } from '../../shared/ledger';
import type { AppDeps } from '../deps';
import { requestDeps } from '../http/share-by-caller';
import { ApiError, errorResponses } from './schemas';
import { asTokenOwner, requires, type ApiCaller } from './token-auth';

export const Balance = z.object({ balance: z.number() }).openapi('Balance');

const LEDGER_PAGE_MAX = 200;

const Transaction = z
  .object({
    id: z.string().uuid(),
    type: z.enum(TRANSACTION_TYPES),
    description: z.string(),
    amount: z.number().openapi({ description: 'USD: positive credits the balance, negative takes from it' }),
    service_id: z.string().uuid().nullable(),
    created_at: z.string(),
  })
  .openapi('Transaction');
const Ledger = z
  .object({
    transactions: z.array(Transaction),
    next_cursor: z.string().nullable().openapi({ description: 'Pass as `cursor` for the next (older) page; null on the last' }),
  })
  .openapi('Ledger');

const balanceRoute = createRoute({
  method: 'get',
  path: '/balance',
  summary: 'Read the balance',
  tags: ['Billing'],
  description: 'Your credit balance in USD. Required scope: billing:read.',
  ...requires('billing:read'),
  responses: { 200: { description: 'The balance', content: { 'application/json': { schema: Balance } } }, ...errorResponses },
});

const ledgerRoute = createRoute({
  method: 'get',
  path: '/ledger',
  summary: 'Read the ledger',
  tags: ['Billing'],
  description: 'Every movement of your balance, newest first, a page at a time. Required scope: billing:read.',
  ...requires('billing:read'),
  request: {
    query: z.object({
      limit: z.coerce.number().int().min(1).max(LEDGER_PAGE_MAX).default(50),
      cursor: z.string().max(200).optional().openapi({ description: "The previous page's next_cursor" }),
    }),
  },
  responses: {
    200: { description: 'One page', content: { 'application/json': { schema: Ledger } } },
    400: { description: 'A cursor this API did not give', content: { 'application/json': { schema: ApiError } } },
    ...errorResponses,
  },
});

type Row = Omit<z.infer<typeof Transaction>, 'amount'> & { amount: string };

/** A page's last row as the next page's start: its time (to the microsecond) and id, which break every tie. */
const encodeCursor = (row: Row) => Buffer.from(JSON.stringify([row.created_at, row.id])).toString('base64url');

/** As to_json writes a timestamptz. */
const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?[+-]\d\d:\d\d$/;

function decodeCursor(cursor: string): [string, string] | undefined {
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString());
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && TIME.test(v[0]) && typeof v[1] === 'string' && z.uuid().safeParse(v[1]).success)
      return [v[0], v[1]];
  } catch {
    // Not ours: answered below.
  }
  return undefined;
}

export function billingRoutes(appDeps: Pick<AppDeps, 'db'>) {
  const app = new OpenAPIHono<{ Variables: { apiCaller: ApiCaller } }>();
  app.openapi(balanceRoute, async (c) => {
    const deps = requestDeps(c, appDeps);
    const r = await asTokenOwner(deps, c, (tx) => tx.query<{ balance: string }>(`select balance::text from public.user_credits`), { readOnly: true });
    return c.json({ balance: Number(r.rows[0]?.balance ?? 0) }, 200);
  });
  app.openapi(ledgerRoute, async (c) => {
    const deps = requestDeps(c, appDeps);
    const { limit, cursor } = c.req.valid('query');
    const after = cursor === undefined ? undefined : decodeCursor(cursor);
    if (cursor !== undefined && !after) return c.json({ code: 'invalid_request', message: 'cursor: not one this API gave' }, 400);
    // RLS gives the owner only their own rows; one more than the page tells whether another follows.
    const r = await asTokenOwner(
      deps,
      c,
      (tx) =>
        tx.query<Row>(
          `select id, type, description, amount::text, service_id, to_json(created_at) #>> '{}' as created_at
             from public.credit_transactions
            where $1::timestamptz is null or (created_at, id) < ($1::timestamptz, $2::uuid)
            order by created_at desc, id desc
            limit $3`,
          [after?.[0] ?? null, after?.[1] ?? null, limit + 1],
        ),
      { readOnly: true },
    );
    const page = r.rows.slice(0, limit);
    return c.json(
      {
        transactions: page.map((row) => ({ ...row, amount: Number(row.amount) })),
        next_cursor: r.rows.length > limit ? encodeCursor(page[page.length - 1]!) : null,
      },
      200,
    );
  });
  return app;
}

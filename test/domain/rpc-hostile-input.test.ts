import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, GALA_KEY, TOWN_STAR, type TestUser } from '../helpers/users';

// Malformed arguments to every RPC a user can call: a clear 4xx, never a 500, and nothing changes.
let s: TestServer;
let u: TestUser;
let serviceId: string;
beforeAll(async () => {
  s = await startTestServer({ RATE_LIMITS_ENABLED: 'false' });
  u = await createTestUser(s, { credits: 20 });
  const { data } = await u.client.rpc('create_service_securely', { p_name: 'victim', p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR });
  serviceId = (data as { id: string }).id;
  await s.serviceClient().rpc('complete_service_installation', { p_service_id: serviceId });
});
afterAll(() => s.stop());

const NUL = 'a\u0000b';
const cases = (): [string, Record<string, unknown>][] => [
  ['create_service_securely', { p_name: 'x1x', p_description: null, p_api_key: GALA_KEY, p_product_id: 'not-a-uuid' }],
  ['create_service_securely', { p_name: NUL, p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR }],
  ['create_service_securely', { p_name: ['array'], p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR }],
  ['create_service_securely', { p_name: 'fine-name', p_description: 'x'.repeat(501), p_api_key: GALA_KEY, p_product_id: TOWN_STAR }],
  ['create_service_securely', { p_name: 'fine-name', p_description: null, p_api_key: GALA_KEY }],
  ['manage_service_operation', { p_service_id: serviceId, p_operation: 'update', p_updates: 'name=evil' }],
  ['manage_service_operation', { p_service_id: serviceId, p_operation: 'update', p_updates: { name: '' } }],
  ['manage_service_operation', { p_service_id: serviceId, p_operation: 'update', p_updates: { api_key: '' } }],
  ['manage_service_operation', { p_service_id: serviceId, p_operation: 'update', p_updates: { description: { nested: true } } }],
  ['manage_service_operation', { p_service_id: serviceId, p_operation: null }],
  ['manage_service_operation', { p_service_id: null, p_operation: 'delete' }],
  ['extend_service_expiration', { p_service_id: serviceId, p_product_id: TOWN_STAR, p_months: 'six' }],
  ['extend_service_expiration', { p_service_id: serviceId, p_product_id: TOWN_STAR, p_months: 1e12 }],
  ['extend_service_expiration', { p_service_id: serviceId, p_product_id: TOWN_STAR, p_months: 1.5 }],
  ['extend_service_expiration', { p_service_id: serviceId, p_product_id: TOWN_STAR, p_months: -1 }],
  ['extend_service_expiration', { p_service_id: serviceId, p_product_id: TOWN_STAR, p_months: null }],
  ['service_power_action', { p_service_id: serviceId, p_action: 'reboot' }],
  ['service_power_action', { p_service_id: serviceId, p_action: null }],
  ['service_power_action', { p_service_id: 'not-a-uuid', p_action: 'stop' }],
  ['service_power_action', { p_service_id: serviceId }],
  ['get_unused_purchased_services', { p_user_id: 'me' }],
  ['get_unused_purchased_services', {}],
  ['update_user_credits', { p_user_id: u.id, p_amount: -1, p_transaction_type: 'service_charge', p_description: NUL }],
  ['update_user_credits', { p_user_id: u.id, p_amount: 'NaN', p_transaction_type: 'service_charge', p_description: 'x' }],
  ['update_user_credits', { p_user_id: u.id, p_amount: -1, p_transaction_type: 'service_charge', p_description: 'x', p_idempotency_key: 'k'.repeat(201) }],
  ['has_dev_access', { user_uuid: 42 }],
  ['is_user_admin', { user_uuid: '' }],
  ['get_user_stats', { p_limit: 'all' }],
  ['no_such_function', {}],
];

async function snapshot() {
  const { rows } = await s.deps.db.query(
    `select (select balance from public.user_credits where user_id = $1) as balance,
            (select count(*)::int from public.credit_transactions where user_id = $1) as ledger,
            (select json_agg(json_build_object('name', name, 'description', description, 'renews_at', renews_at,
                    'state', state, 'key', encode(api_key_encrypted, 'hex')) order by id)
               from private.services where user_id = $1) as services`,
    [u.id],
  );
  return rows[0];
}

it('answers every malformed call with a 4xx and changes nothing', async () => {
  const before = await snapshot();
  const answers: string[] = [];
  for (const [fn, args] of cases()) {
    const { status, error } = await u.client.rpc(fn, args);
    const ok = status >= 400 && status < 500 && typeof error?.message === 'string' && error.message !== '';
    if (!ok) answers.push(`${fn} ${JSON.stringify(args).slice(0, 80)} → ${status} ${JSON.stringify(error)}`);
  }
  expect(answers).toEqual([]);
  expect(await snapshot()).toEqual(before);
});

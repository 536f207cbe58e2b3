import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyError, createServiceError, messages, newKeySchema, parseProperties, serviceNameError } from '../../src/shared/validation';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, GALA_KEY, LICENCE_KEY, MASTER_NODE, TOWN_STAR, type TestUser } from '../helpers/users';
import { expectLedgerBalanced } from '../helpers/ledger';

// One table of cases, run through the shared zod module (the forms) and the SQL (the database).
const names: [string, string | null][] = [
  ['ab', messages.serviceNameShort],
  ['', messages.serviceNameShort],
  ['a'.repeat(17), messages.serviceNameLong],
  ['my node', messages.serviceNameSpaces],
  ['my\tnode', messages.serviceNameSpaces],
  ['node!', messages.serviceNameChars],
  ['nöde', messages.serviceNameChars],
  ['a😀', messages.serviceNameShort],
  ['ab😀', messages.serviceNameChars],
  ['no\u00a0de', messages.serviceNameSpaces],
  ['no\u3000de', messages.serviceNameSpaces],
  ['-node', messages.serviceNameEdges],
  ['node_', messages.serviceNameEdges],
  ['abc', null],
  ['a'.repeat(16), null],
  ['Town-Star_01', null],
];

const masterNode = JSON.stringify({
  data_name: 'Master Node License Key',
  data_description: 'The licence key contains only letters, digits and hyphens',
  data_validation: { valid_chars: 'A-Za-z0-9-', format: '############-####-####-####-############' },
});
const withEnding = JSON.stringify({ data_validation: { minimum_length: 4, ends_with: '==' } });
const noDescription = JSON.stringify({ data_validation: { valid_chars: 'a-z' } });
const walletLabel = JSON.stringify({ data_name: ' Wallet  Access Token ', data_validation: { valid_chars: 'a-z', ends_with: '.' } });
const acronymLabel = JSON.stringify({ data_name: 'Node ID', data_validation: { minimum_length: 4, maximum_length: 6 } });
const oneWordLabel = JSON.stringify({ data_name: 'Licence' });

const keys: [string, string | null, string | null][] = [
  ['A'.repeat(43), null, messages.apiKeyDefaultLength()],
  ['A'.repeat(47), null, messages.apiKeyDefaultLength()],
  [`${'A'.repeat(20)} ${'A'.repeat(22)}=`, null, messages.apiKeySpaces()],
  ['A'.repeat(44), null, messages.apiKeyDefaultEnding()],
  [`${'A'.repeat(42)}-=`, null, messages.apiKeyChars()],
  [`${'A'.repeat(43)}=`, null, null],
  [`${'😀'.repeat(44)}=`, null, messages.apiKeyChars()],
  [`${'A'.repeat(42)}\u2003=`, null, messages.apiKeySpaces()],
  [`${'a+/9'.repeat(11)}==`, null, null],
  [`${'A'.repeat(43)}=`, '{not json', null],
  ['A'.repeat(44), '["an array"]', messages.apiKeyDefaultEnding()],
  // The Master Node's label says "License Key": so do its messages.
  ['MN-1234', masterNode, messages.apiKeyFormat('############-####-####-####-############', 'License key')],
  ['MN0123456789-1234-5678-ABCD01234567EFGH', masterNode, messages.apiKeyFormat('############-####-####-####-############', 'License key')],
  ['MN0123456789-1234-5678-ABCD-01234567EFGH-', masterNode, messages.apiKeyFormat('############-####-####-####-############', 'License key')],
  ['MN01234567891-234-5678-ABCD-01234567EFGH', masterNode, messages.apiKeyFormat('############-####-####-####-############', 'License key')],
  ['MN0123456789_1234_5678_ABCD_01234567EFGH', masterNode, 'The licence key contains only letters, digits and hyphens'],
  ['MN0123456789-1234-5678-ABCD-01234567EFGH', masterNode, null],
  ['abc', withEnding, messages.apiKeyMin(4)],
  ['abcd=', withEnding, messages.apiKeyEnding('==')],
  ['abc==', withEnding, null],
  ['ABC', noDescription, messages.apiKeyChars()],
  ['ABC', walletLabel, messages.apiKeyChars('Access token')],
  ['abc', walletLabel, messages.apiKeyEnding('.', 'Access token')],
  ['abc', acronymLabel, messages.apiKeyMin(4, 'Node ID')],
  ['abcdefg', acronymLabel, messages.apiKeyMax(6, 'Node ID')],
  ['A'.repeat(44), oneWordLabel, messages.apiKeyDefaultEnding('Licence')],
  ['A'.repeat(44), JSON.stringify({ data_name: 42 }), messages.apiKeyDefaultEnding()],
];

// The create dialog's submit checks (spec §5, in order) against create_service_securely itself.
// The user has $5 and one service named "Taken"; Town Star costs $10, the Master Node $3.
const creates: [string, string, string | null, string | null][] = [
  ['', '', null, messages.serviceNameRequired],
  ['x', '', null, messages.serviceNameShort],
  ['bad name', '', null, messages.serviceNameSpaces],
  ['TAKEN', '', null, messages.serviceNameTaken],
  ['fresh', '', null, messages.apiKeyRequired()],
  ['fresh', '', MASTER_NODE, messages.apiKeyRequired('License key')],
  ['fresh', 'anything', null, messages.planRequired],
  ['fresh', 'short=', TOWN_STAR, messages.apiKeyInvalid()],
  ['fresh', GALA_KEY, MASTER_NODE, messages.apiKeyInvalid('License key')],
  ['fresh', GALA_KEY, TOWN_STAR, messages.insufficientFunds],
  ['fresh', LICENCE_KEY, MASTER_NODE, null],
];

describe('validation agrees between the forms and the database', () => {
  let s: TestServer;
  let u: TestUser;
  beforeAll(async () => {
    s = await startTestServer();
    u = await createTestUser(s, { credits: 8 });
    await u.client.rpc('create_service_securely', { p_name: 'Taken', p_description: null, p_api_key: LICENCE_KEY, p_product_id: MASTER_NODE });
  });
  // Money moves here: every balance stays its ledger's sum.
  afterEach(() => expectLedgerBalanced(s.deps.db));
  afterAll(() => s.stop());

  it.each(names)('service name %j', async (name, expected) => {
    expect(serviceNameError(name)).toBe(expected);
    const { rows } = await s.deps.db.query<{ e: string | null }>('select private.service_name_error($1) as e', [name]);
    expect(rows[0]!.e).toBe(expected);
  });

  it.each(keys)('API key %j with properties %j', async (key, properties, expected) => {
    expect(apiKeyError(key, parseProperties(properties))).toBe(expected);
    const { rows } = await s.deps.db.query<{ e: string | null }>('select private.api_key_error($1, $2) as e', [key, properties]);
    expect(rows[0]!.e).toBe(expected);
  });

  it.each(creates)('create %j with key %j and plan %j', async (name, apiKey, productId, expected) => {
    const { data: products } = await u.client.from('products').select('id, price, properties');
    const product = (products as { id: string; price: number; properties: string | null }[]).find((p) => p.id === productId);
    const { data: credits } = await u.client.from('user_credits').select('balance').eq('user_id', u.id).single();
    const { data: names } = await u.client.from('services').select('name').eq('is_deleted', false);
    const form = createServiceError({
      loggedIn: true,
      name,
      apiKey,
      productId,
      properties: parseProperties(product?.properties),
      existingNames: (names as { name: string }[]).map((n) => n.name),
      price: product?.price ?? 0,
      balance: (credits as { balance: number }).balance,
      reusableAvailable: false,
    });
    const { error } = await u.client.rpc('create_service_securely', { p_name: name, p_description: null, p_api_key: apiKey, p_product_id: productId });
    expect({ form, database: error?.message ?? null }).toEqual({ form: expected, database: expected });
  });

  it("Change key with the service's own key: the form and manage_service_operation say so in the same words, and nothing changes", async () => {
    const { data: svc } = await u.client.from('services').select('id, api_key, product_id').eq('name', 'Taken').single();
    const { id, api_key: current, product_id: productId } = svc as { id: string; api_key: string; product_id: string };
    const { data: product } = await u.client.from('products').select('properties').eq('id', productId).single();
    const properties = parseProperties((product as { properties: string | null }).properties);
    const form = (key: string) => newKeySchema(properties, current).safeParse(key).error?.issues[0]?.message ?? null;
    const state = async () =>
      (
        await s.deps.db.query<{ updated_at: Date; api_key_encrypted: string; events: number; jobs: number }>(
          `select s.updated_at, s.api_key_encrypted,
                  (select count(*)::int from public.service_events e where e.service_id = s.id) as events,
                  (select count(*)::int from nodeharbor.jobs j where j.payload ->> 'serviceId' = s.id::text) as jobs
             from private.services s where s.id = $1`,
          [id],
        )
      ).rows[0];
    // An active service: a changed key would be handed to its node by a job.
    await s.deps.db.query(`update private.services set state = 'active' where id = $1`, [id]);
    const before = await state();
    const { error } = await u.client.rpc('manage_service_operation', { p_service_id: id, p_operation: 'update', p_updates: { api_key: current } });
    expect({ form: form(current), database: error?.message ?? null }).toEqual({ form: messages.sameKey, database: messages.sameKey });
    expect(await state()).toEqual(before);

    // Another valid key is no problem to either, and the database records and hands it over.
    const other = current.replace(/.$/, current.endsWith('A') ? 'B' : 'A');
    const changed = await u.client.rpc('manage_service_operation', { p_service_id: id, p_operation: 'update', p_updates: { api_key: other } });
    expect({ form: form(other), database: changed.error?.message ?? null }).toEqual({ form: null, database: null });
    const after = await state();
    expect(after).toMatchObject({ events: before!.events + 1, jobs: before!.jobs + 1 });
  });
});

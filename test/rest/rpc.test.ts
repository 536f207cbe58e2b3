import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';
import { installFixtures, reloadSchema, rest, seedItems, userClient } from './fixtures';

describe('REST rpc', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
    await installFixtures(s);
    await seedItems(s);
  });
  afterAll(() => s.stop());

  it('a scalar function answers the bare JSON value', async () => {
    const { data, error, status } = await s.client().rpc('add_numbers', { a: 2, b: 40 });
    expect(error).toBeNull();
    expect(status).toBe(200);
    expect(data).toBe(42);
    const r = await rest(s, 'rpc/hello', { method: 'POST', body: '{"name":"you"}' });
    expect(await r.text()).toBe('"hello you"');
  });

  it('uses argument defaults when a key is left out', async () => {
    const { data } = await s.client().rpc('hello');
    expect(data).toBe('hello world');
  });

  it('SETOF scalar is an array of values; SETOF rows an array of objects; one row an object', async () => {
    expect((await s.client().rpc('item_name_list')).data).toEqual(['alpha', 'beta', 'gamma', 'Delta', 'epsilon*']);
    const rows = await s.client().rpc('items_above', { min_qty: 10 });
    expect(rows.data).toEqual([
      { id: 4, name: 'Delta', qty: 20, note: null, code: 'D' },
      { id: 5, name: 'epsilon*', qty: 15, note: "it's quoted", code: 'E' },
    ]);
    expect((await s.client().rpc('first_item')).data).toEqual({ id: 1, name: 'alpha', qty: 5, note: null, code: 'A' });
    expect((await s.client().rpc('item_stats')).data).toEqual([{ total: 5, max_qty: 20 }]);
    expect((await s.client().rpc('nothing_found')).data).toEqual([]);
  });

  it('select, filters, order, limit and single apply to a set-returning function', async () => {
    const { data } = await s.client().rpc('items_above', { min_qty: 0 }).select('name').lt('qty', 16).order('qty', { ascending: false }).limit(2);
    expect(data).toEqual([{ name: 'epsilon*' }, { name: 'beta' }]);
    const one = await s.client().rpc('items_above', { min_qty: 0 }).eq('id', 2).single();
    expect(one.data).toMatchObject({ name: 'beta' });
    const many = await s.client().rpc('items_above', { min_qty: 0 }).single();
    expect(many.status).toBe(406);
    const counted = await s.client().rpc('items_above', { min_qty: 0 }, { count: 'exact' }).limit(1);
    expect(counted.count).toBe(4);
    const unknown = await s.client().rpc('items_above', { min_qty: 0 }).eq('nope', 1);
    expect(unknown.error).toMatchObject({ code: '42703' });
  });

  it('a void function answers 204 and does its work', async () => {
    const r = await s.client().rpc('touch_item', { item_id: 2 });
    expect(r).toMatchObject({ status: 204, data: null, error: null });
    const { rows } = await s.deps.db.query(`select note from public.items where id = 2`);
    expect(rows[0]?.note).toBe('touched');
  });

  it('takes jsonb and array arguments from JSON', async () => {
    const { data } = await s.client().rpc('echo_json', { payload: { a: [1, { b: null }] }, tags: ['x', 'y'] });
    expect(data).toEqual({ payload: { a: [1, { b: null }] }, tags: ['x', 'y'] });
  });

  it('GET and HEAD rpc take arguments from the query string and run read-only', async () => {
    const get = await s.client().rpc('add_numbers', { a: 1, b: 2 }, { get: true });
    expect(get.data).toBe(3);
    const raw = await rest(s, 'rpc/hello?name=query+string');
    expect(await raw.json()).toBe('hello query string');
    const head = await s.client().rpc('items_above', { min_qty: 0 }, { head: true, count: 'exact' });
    expect(head.status).toBe(200);
    expect(head.data).toBeNull();
    const filtered = await rest(s, 'rpc/items_above?min_qty=0&id=eq.2&select=name');
    expect(await filtered.json()).toEqual([{ name: 'beta' }]);
    const settings = await rest(s, 'rpc/request_settings_volatile');
    expect(await settings.json()).toEqual({ read_only: 'on' });
  });

  it('STABLE functions run read-only over POST, VOLATILE read-write; role, claims and timeout are set', async () => {
    const uid = randomUUID();
    const c = await userClient(s, uid);
    const stable = await c.rpc('request_settings');
    expect(stable.data).toEqual({ role: 'authenticated', uid, read_only: 'on', timeout: '8s', method: 'POST', path: '/rpc/request_settings' });
    const anon = await s.client().rpc('request_settings');
    expect(anon.data).toMatchObject({ role: 'anon', uid: null, timeout: '3s' });
    const volatile = await c.rpc('request_settings_volatile');
    expect(volatile.data).toEqual({ read_only: 'off' });
    const service = await s.serviceClient().rpc('request_settings');
    expect(service.data).toMatchObject({ role: 'service_role' });
    const written = await s.client().rpc('add_item', { p_id: 60, p_name: 'via rpc' });
    expect(written.data).toBe(60);
  });

  it('RAISE EXCEPTION is 400 with its message, detail and hint', async () => {
    const r = await s.client().rpc('fail_with', { msg: 'Insufficient credits' });
    expect(r.status).toBe(400);
    expect(r.error).toEqual({ code: 'P0001', message: 'Insufficient credits', details: 'some detail', hint: 'some hint' });
  });

  it('42501 raised by a function is 401 for anon and 403 for a user; PTxyz sets the status', async () => {
    const anon = await s.client().rpc('forbidden');
    expect(anon.status).toBe(401);
    expect(anon.error).toMatchObject({ code: '42501', message: 'not allowed here' });
    const user = await (await userClient(s)).rpc('forbidden');
    expect(user.status).toBe(403);
    const pay = await s.client().rpc('pay_first');
    expect(pay.status).toBe(402);
    expect(pay.error).toMatchObject({ code: 'PT402', message: 'Payment required' });
  });

  it('an unknown function or argument set is 404 PGRST202', async () => {
    const none = await s.client().rpc('no_such_function');
    expect(none.status).toBe(404);
    expect(none.error).toMatchObject({
      code: 'PGRST202',
      message: 'Could not find the function public.no_such_function without parameters in the schema cache',
    });
    const wrongArgs = await s.client().rpc('add_numbers', { a: 1, c: 2 });
    expect(wrongArgs.status).toBe(404);
    expect(wrongArgs.error).toMatchObject({ code: 'PGRST202', message: 'Could not find the function public.add_numbers(a, c) in the schema cache' });
    const missing = await s.client().rpc('add_numbers', { a: 1 });
    expect(missing.status).toBe(404);
    const viaGet = await rest(s, 'rpc/no_such_function?a=1&select=x');
    expect(viaGet.status).toBe(404);
    expect((await viaGet.json()).message).toBe('Could not find the function public.no_such_function(a) in the schema cache');
  });

  it('bad argument values and bodies are 400, never 500', async () => {
    const badType = await s.client().rpc('add_numbers', { a: 'x', b: 1 });
    expect(badType.status).toBe(400);
    expect(badType.error).toMatchObject({ code: '22P02' });
    const notObject = await rest(s, 'rpc/add_numbers', { method: 'POST', body: '[1,2]' });
    expect(notObject.status).toBe(400);
    expect((await notObject.json()).code).toBe('PGRST102');
    const broken = await rest(s, 'rpc/add_numbers', { method: 'POST', body: '{"a":' });
    expect(broken.status).toBe(400);
    const del = await rest(s, 'rpc/add_numbers', { method: 'DELETE' });
    expect(del.status).toBe(405);
  });

  it('reloads the schema cache after a function is replaced under it', async () => {
    await s.deps.db.exec(`create function public.bump() returns int language sql stable as $$ select 1 $$`);
    await reloadSchema(s);
    expect((await s.client().rpc('bump')).data).toBe(1);
    await s.deps.db.exec(`
      create or replace function public.bump() returns int language sql volatile as $$
        insert into public.items (id, name) values (70, 'bumped') returning id
      $$`);
    // The cached volatility still says STABLE: the first call runs read-only and fails, changing nothing...
    expect((await s.client().rpc('bump')).status).toBe(405);
    // ...and the failure reloads the cache, so the next call runs read-write.
    // Catalogue loads are at most one a second (RELOAD_INTERVAL_MS), so the poll allows a few.
    await expect.poll(async () => (await s.client().rpc('bump')).data, { timeout: 5000 }).toBe(70);
    const { rows } = await s.deps.db.query(`select count(*)::int as n from public.items where id = 70`);
    expect(rows[0]?.n).toBe(1);
  });

  it('sees a function created after the server started', async () => {
    await s.deps.db.exec(`create function public.late_fn(x int) returns int language sql immutable as $$ select x * 2 $$`);
    await reloadSchema(s);
    expect((await s.client().rpc('late_fn', { x: 21 })).data).toBe(42);
  });
});

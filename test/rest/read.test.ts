import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';
import { installFixtures, reloadSchema, rest, seedItems, userClient, userToken } from './fixtures';

describe('REST reads', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
    await installFixtures(s);
    await seedItems(s);
  });
  afterAll(() => s.stop());

  it('selects a column list with filters and order through supabase-js', async () => {
    const { data, error, status } = await s.client().from('items').select('id, name').gt('qty', 4).order('qty', { ascending: false });
    expect(error).toBeNull();
    expect(status).toBe(200);
    expect(data).toEqual([
      { id: 4, name: 'Delta' },
      { id: 5, name: 'epsilon*' },
      { id: 2, name: 'beta' },
      { id: 1, name: 'alpha' },
    ]);
  });

  it('supports aliases and casts in select', async () => {
    const { data } = await s.client().from('items').select('label:name, amount:qty::text, id').eq('id', 2);
    expect(data).toEqual([{ label: 'beta', amount: '10', id: 2 }]);
    const r = await rest(s, 'items?select=label:name,qty::text&id=eq.2');
    expect(await r.json()).toEqual([{ label: 'beta', qty: '10' }]);
  });

  it('applies every comparison operator', async () => {
    const ids = async (q: string) => ((await (await rest(s, `items?select=id&order=id${q ? `&${q}` : ''}`)).json()) as { id: number }[]).map((r) => r.id);
    expect(await ids('id=eq.3')).toEqual([3]);
    expect(await ids('id=neq.3')).toEqual([1, 2, 4, 5]);
    expect(await ids('qty=gt.10')).toEqual([4, 5]);
    expect(await ids('qty=gte.10')).toEqual([2, 4, 5]);
    expect(await ids('qty=lt.5')).toEqual([3]);
    expect(await ids('qty=lte.5')).toEqual([1, 3]);
    expect(await ids('name=like.*ta')).toEqual([2, 4]);
    expect(await ids('name=ilike.d*')).toEqual([4]);
    expect(await ids('name=like.epsilon%2A')).toEqual([5]);
    expect(await ids('note=is.null')).toEqual([1, 4]);
    expect(await ids('note=not.is.null')).toEqual([2, 3, 5]);
    expect(await ids('note=is.not_null')).toEqual([2, 3, 5]);
    expect(await ids('id=in.(1,3,5)')).toEqual([1, 3, 5]);
    expect(await ids('id=not.in.(1,3,5)')).toEqual([2, 4]);
    expect(await ids('note=in.(%22third,%20with%20comma%22,second)')).toEqual([2, 3]);
    expect(await ids('id=not.eq.1&id=not.eq.2')).toEqual([3, 4, 5]);
    // Regular expressions need a signed-in caller (issue 15): see stall.test.ts.
    const user = { headers: { Authorization: `Bearer ${await userToken(s, '00000000-0000-4000-8000-000000000001')}` } };
    const userIds = async (q: string) => ((await (await rest(s, `items?select=id&order=id&${q}`, user)).json()) as { id: number }[]).map((r) => r.id);
    expect(await userIds('name=match.^[ab]')).toEqual([1, 2]);
    expect(await userIds('name=imatch.^d')).toEqual([4]);
    expect(await ids('note=isdistinct.second')).toEqual([1, 3, 4, 5]);
    expect(await ids('id=in.()')).toEqual([]);
    expect(await ids('or=(id.eq.1,qty.gte.20)')).toEqual([1, 4]);
    expect(await ids('or=(id.eq.1,and(qty.gt.5,note.is.null))')).toEqual([1, 4]);
    expect(await ids('not.or=(id.lt.3,id.gt.4)')).toEqual([3, 4]);
    expect(await ids('and=(id.gt.1,or(note.eq."third, with comma",note.not.is.null))&id=lt.4')).toEqual([2, 3]);
    expect(await ids('or=(id.in.(1,2),name.eq.gamma)')).toEqual([1, 2, 3]);
  });

  it('accepts values with commas, quotes and spaces as supabase-js sends them', async () => {
    const { data } = await s.client().from('items').select('id').eq('note', "it's quoted");
    expect(data).toEqual([{ id: 5 }]);
    const { data: inData } = await s.client().from('items').select('id').in('note', ['third, with comma', "it's quoted"]).order('id');
    expect(inData).toEqual([{ id: 3 }, { id: 5 }]);
    const { data: eqComma } = await s.client().from('items').select('id').eq('note', 'third, with comma');
    expect(eqComma).toEqual([{ id: 3 }]);
    const { data: either } = await s.client().from('items').select('id').or('qty.eq.0, name.ilike.ALPHA').order('id');
    expect(either).toEqual([{ id: 1 }, { id: 3 }]);
  });

  it('orders by several columns with nulls placement', async () => {
    const r = await rest(s, 'items?select=id&order=note.desc.nullsfirst,id.desc');
    expect(await r.json()).toEqual([{ id: 4 }, { id: 1 }, { id: 3 }, { id: 2 }, { id: 5 }]);
    const { data } = await s.client().from('items').select('id').order('note', { ascending: true, nullsFirst: false }).order('id');
    expect(data).toEqual([{ id: 5 }, { id: 2 }, { id: 3 }, { id: 1 }, { id: 4 }]);
  });

  it('pages with limit, offset and range, and counts exactly', async () => {
    const { data, count, status } = await s.client().from('items').select('id', { count: 'exact' }).order('id').range(1, 2);
    expect(data).toEqual([{ id: 2 }, { id: 3 }]);
    expect(count).toBe(5);
    expect(status).toBe(206);
    const all = await rest(s, 'items?select=id', { headers: { Prefer: 'count=exact' } });
    expect(all.status).toBe(200);
    expect(all.headers.get('content-range')).toBe('0-4/5');
    const none = await rest(s, 'items?select=id&id=eq.99', { headers: { Prefer: 'count=exact' } });
    expect(none.headers.get('content-range')).toBe('*/0');
    const noCount = await rest(s, 'items?select=id&limit=2');
    expect(noCount.headers.get('content-range')).toBe('0-1/*');
    const zero = await rest(s, 'items?limit=0');
    expect(await zero.json()).toEqual([]);
    const beyond = await rest(s, 'items?offset=10', { headers: { Prefer: 'count=exact' } });
    expect(beyond.status).toBe(416);
    expect((await beyond.json()).code).toBe('PGRST103');
  });

  it('counts with HEAD and no body', async () => {
    const { count, data, status } = await s.client().from('items').select('*', { count: 'exact', head: true }).gte('qty', 10);
    expect(status).toBe(200);
    expect(data).toBeNull();
    expect(count).toBe(3);
  });

  it('single(): one row is an object, zero or two rows are 406 PGRST116', async () => {
    const one = await s.client().from('items').select('name').eq('id', 1).single();
    expect(one.error).toBeNull();
    expect(one.data).toEqual({ name: 'alpha' });
    const zero = await s.client().from('items').select('name').eq('id', 99).single();
    expect(zero.status).toBe(406);
    expect(zero.error).toMatchObject({ code: 'PGRST116', details: 'The result contains 0 rows', hint: null });
    const two = await s.client().from('items').select('name').in('id', [1, 2]).single();
    expect(two.status).toBe(406);
    expect(two.error).toMatchObject({ code: 'PGRST116', details: 'The result contains 2 rows' });
  });

  it('maybeSingle(): null for none, the object for one, an error for two', async () => {
    const zero = await s.client().from('items').select('name').eq('id', 99).maybeSingle();
    expect(zero).toMatchObject({ data: null, error: null, status: 200 });
    const one = await s.client().from('items').select('name').eq('id', 1).maybeSingle();
    expect(one.data).toEqual({ name: 'alpha' });
    const two = await s.client().from('items').select('name').in('id', [1, 2]).maybeSingle();
    expect(two.error).toMatchObject({ code: 'PGRST116' });
  });

  it('formats values as PostgreSQL does: numeric stays a number, timestamps carry an offset, arrays and json nest', async () => {
    const uid = randomUUID();
    await s.deps.db.query(
      `insert into public.todos (owner, title, price, tags, meta, created_at) values ($1, 'typed', 12.50, '{a,b}', '{"k":[1,{"x":null}]}', '2024-05-06T07:08:09.123Z')`,
      [uid],
    );
    const c = await userClient(s, uid);
    const r = await c.from('todos').select('price, tags, meta, created_at, done').single();
    expect(r.data).toEqual({ price: 12.5, tags: ['a', 'b'], meta: { k: [1, { x: null }] }, created_at: '2024-05-06T07:08:09.123+00:00', done: false });
    const { data: byTag } = await c.from('todos').select('title').contains('tags', ['a']);
    expect(byTag).toEqual([{ title: 'typed' }]);
    const { data: byPrice } = await c.from('todos').select('title').eq('price', '12.5');
    expect(byPrice).toEqual([{ title: 'typed' }]);
  });

  it('reads views', async () => {
    const { data } = await s.client().from('item_names').select('name').eq('id', 3);
    expect(data).toEqual([{ name: 'gamma' }]);
  });

  it('answers JSON with PostgREST headers', async () => {
    const r = await rest(s, 'items?select=id&id=eq.1');
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const obj = await rest(s, 'items?select=id&id=eq.1', { headers: { Accept: 'application/vnd.pgrst.object+json' } });
    expect(await obj.json()).toEqual({ id: 1 });
    const any = await rest(s, 'items?select=id&id=eq.1', { headers: { Accept: 'text/html, */*;q=0.8' } });
    expect(any.status).toBe(200);
  });

  it('refuses other media types and schemas', async () => {
    const html = await rest(s, 'items', { headers: { Accept: 'text/html' } });
    expect(html.status).toBe(406);
    expect((await html.json()).code).toBe('PGRST107');
    const schema = await rest(s, 'items', { headers: { 'Accept-Profile': 'auth' } });
    expect(schema.status).toBe(406);
    expect(await schema.json()).toEqual({
      code: 'PGRST106',
      message: 'Invalid schema: auth',
      details: null,
      hint: 'Only the following schemas are exposed: public',
    });
    expect(schema.headers.get('proxy-status')).toBe('PostgREST; error=PGRST106');
    const viaClient = await s.client().schema('auth').from('users').select('*');
    expect(viaClient.status).toBe(406);
  });

  it('answers unknown tables, columns and paths with PostgREST errors', async () => {
    const t = await s.client().from('no_such_table').select('*');
    expect(t.status).toBe(404);
    expect(t.error).toMatchObject({ code: 'PGRST205', message: "Could not find the table 'public.no_such_table' in the schema cache" });
    const c = await s.client().from('items').select('id, nope');
    expect(c.status).toBe(400);
    expect(c.error).toEqual({ code: '42703', message: 'column items.nope does not exist', details: null, hint: null });
    const f = await s.client().from('items').select('id').eq('nope', 1);
    expect(f.error).toMatchObject({ code: '42703' });
    const o = await s.client().from('items').select('id').order('nope');
    expect(o.error).toMatchObject({ code: '42703' });
    const embed = await s.client().from('items').select('id, todos(*)');
    expect(embed.status).toBe(400);
    expect(embed.error).toMatchObject({ code: 'PGRST200' });
    const deep = await rest(s, 'items/1');
    expect(deep.status).toBe(404);
    expect((await deep.json()).code).toBe('PGRST125');
    const put = await rest(s, 'items?id=eq.1', { method: 'PUT', body: '{}' });
    expect(put.status).toBe(405);
  });

  it('sees a table created after the server started', async () => {
    await s.deps.db.exec(`create table public.late (id int primary key, label text); insert into public.late values (1, 'x');`);
    await reloadSchema(s);
    const first = await rest(s, 'late?select=label');
    expect(await first.json()).toEqual([{ label: 'x' }]);
    await s.deps.db.exec(`alter table public.late add column extra text default 'e'`);
    await reloadSchema(s);
    const second = await rest(s, 'late?select=extra');
    expect(await second.json()).toEqual([{ extra: 'e' }]);
  });

  it('bad values for a column type are 400 with the database message', async () => {
    const r = await s.client().from('items').select('id').eq('id', 'abc');
    expect(r.status).toBe(400);
    expect(r.error).toMatchObject({ code: '22P02' });
  });
});

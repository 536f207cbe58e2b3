import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';
import { installFixtures, reloadSchema, rest, seedItems, userClient } from './fixtures';

describe('REST writes', () => {
  let s: TestServer;
  const itemRows = async () => (await s.deps.db.query(`select id, name, qty, note from public.items order by id`)).rows;

  beforeAll(async () => {
    s = await startTestServer();
    await installFixtures(s);
  });
  beforeEach(() => seedItems(s));
  afterAll(() => s.stop());

  it('inserts one object: 201 with no body, or the row with return=representation', async () => {
    const minimal = await s.client().from('items').insert({ id: 10, name: 'ten' });
    expect(minimal).toMatchObject({ status: 201, data: null, error: null });
    const rep = await s.client().from('items').insert({ id: 11, name: 'eleven', qty: 3 }).select().single();
    expect(rep.status).toBe(201);
    expect(rep.data).toEqual({ id: 11, name: 'eleven', qty: 3, note: null, code: null });
    const cols = await s.client().from('items').insert({ id: 12, name: 'twelve' }).select('id, name');
    expect(cols.data).toEqual([{ id: 12, name: 'twelve' }]);
    expect((await itemRows()).map((r) => r.id)).toEqual([1, 2, 3, 4, 5, 10, 11, 12]);
  });

  it('inserts an array with the columns= parameter, nulls for missing keys or defaults with missing=default', async () => {
    // With null for the missing qty (no missing=default), the NOT NULL constraint refuses the row.
    const { data, error } = await s
      .serviceClient()
      .from('items')
      .insert([
        { id: 20, name: 'a', qty: 1 },
        { id: 21, name: 'b', note: 'n' },
      ])
      .select('id, qty, note')
      .order('id');
    expect(error).toMatchObject({ code: '23502' });
    expect(data).toBeNull();
    const withDefault = await s
      .client()
      .from('items')
      .insert(
        [
          { id: 20, name: 'a', qty: 1 },
          { id: 21, name: 'b', note: 'n' },
        ],
        { defaultToNull: false },
      )
      .select('id, qty, note')
      .order('id');
    expect(withDefault.error).toBeNull();
    expect(withDefault.data).toEqual([
      { id: 20, qty: 1, note: null },
      { id: 21, qty: 0, note: 'n' },
    ]);
    const raw = await rest(s, 'items?columns=id,name', {
      method: 'POST',
      body: JSON.stringify([{ id: 22, name: 'c', note: 'ignored' }]),
      headers: { Prefer: 'return=representation' },
    });
    expect(raw.status).toBe(201);
    expect(raw.headers.get('content-range')).toBe('*/*');
    expect(await raw.json()).toEqual([{ id: 22, name: 'c', qty: 0, note: null, code: null }]);
  });

  it('refuses arrays whose objects differ without columns=, unknown columns and bad bodies', async () => {
    const before = await itemRows();
    const mixed = await rest(s, 'items', { method: 'POST', body: JSON.stringify([{ id: 30, name: 'x' }, { id: 31 }]) });
    expect(mixed.status).toBe(400);
    expect(await mixed.json()).toEqual({ code: 'PGRST102', message: 'All object keys must match', details: null, hint: null });
    const unknown = await s.client().from('items').insert({ id: 32, name: 'x', nope: 1 });
    expect(unknown.status).toBe(400);
    expect(unknown.error).toEqual({ code: 'PGRST204', message: "Could not find the 'nope' column of 'items' in the schema cache", details: null, hint: null });
    const notJson = await rest(s, 'items', { method: 'POST', body: '{"id":' });
    expect(notJson.status).toBe(400);
    expect((await notJson.json()).code).toBe('PGRST102');
    const scalar = await rest(s, 'items', { method: 'POST', body: '42' });
    expect(scalar.status).toBe(400);
    const duplicate = await s.client().from('items').insert({ id: 1, name: 'again' });
    expect(duplicate.status).toBe(409);
    // PostgreSQL hides key values from a role that RLS applies to; service_role bypasses RLS.
    expect(duplicate.error).toEqual({ code: '23505', message: 'duplicate key value violates unique constraint "items_pkey"', details: null, hint: null });
    const serviceDuplicate = await s.serviceClient().from('items').insert({ id: 1, name: 'again' });
    expect(serviceDuplicate.error).toMatchObject({ code: '23505', details: 'Key (id)=(1) already exists.' });
    const check = await s.client().from('items').insert({ id: 33, name: 'x', qty: 5000 });
    expect(check.status).toBe(400);
    expect(check.error).toMatchObject({ code: '23514' });
    expect(await itemRows()).toEqual(before);
  });

  it('inserts an empty object with all defaults, and an empty array as nothing', async () => {
    await s.deps.db.exec(`create table if not exists public.counters (id serial primary key, n int default 7)`);
    await reloadSchema(s);
    const one = await rest(s, 'counters', { method: 'POST', body: '{}', headers: { Prefer: 'return=representation' } });
    expect(await one.json()).toEqual([{ id: 1, n: 7 }]);
    const none = await rest(s, 'counters', { method: 'POST', body: '[]', headers: { Prefer: 'return=representation' } });
    expect(none.status).toBe(201);
    expect(await none.json()).toEqual([]);
  });

  it('upserts with merge-duplicates and ignore-duplicates', async () => {
    const merged = await s.client().from('items').upsert({ id: 1, name: 'alpha2', qty: 7 }).select('id, name, qty');
    expect(merged.data).toEqual([{ id: 1, name: 'alpha2', qty: 7 }]);
    const ignored = await s.client().from('items').upsert({ id: 2, name: 'nope' }, { ignoreDuplicates: true }).select('id');
    expect(ignored.data).toEqual([]);
    const byCode = await s.client().from('items').upsert({ id: 4, name: 'by code', code: 'D' }, { onConflict: 'code' }).select('id, name');
    expect(byCode.data).toEqual([{ id: 4, name: 'by code' }]);
    expect((await itemRows()).find((r) => r.id === 2)?.name).toBe('beta');
  });

  it('updates with PATCH: 204, or 200 with the rows', async () => {
    const minimal = await s.client().from('items').update({ note: 'patched' }).eq('id', 1);
    expect(minimal).toMatchObject({ status: 204, data: null, error: null });
    const rep = await s.client().from('items').update({ qty: 1 }).lt('qty', 10).select('id, qty').order('id');
    expect(rep.status).toBe(200);
    expect(rep.data).toEqual([
      { id: 1, qty: 1 },
      { id: 3, qty: 1 },
    ]);
    const counted = await rest(s, 'items?id=gt.3', { method: 'PATCH', body: '{"note":"x"}', headers: { Prefer: 'count=exact' } });
    expect(counted.status).toBe(204);
    expect(counted.headers.get('content-range')).toBe('0-1/2');
    expect((await itemRows()).map((r) => r.note)).toEqual(['patched', 'second', 'third, with comma', 'x', 'x']);
  });

  it('deletes: 204, or 200 with the deleted rows', async () => {
    const minimal = await s.client().from('items').delete().eq('id', 1);
    expect(minimal).toMatchObject({ status: 204, data: null });
    const rep = await s.client().from('items').delete().in('id', [2, 3]).select('name').order('id');
    expect(rep).toMatchObject({ status: 200, data: [{ name: 'beta' }, { name: 'gamma' }] });
    expect((await itemRows()).map((r) => r.id)).toEqual([4, 5]);
  });

  it('refuses UPDATE and DELETE without a filter, changing nothing', async () => {
    const before = await itemRows();
    const upd = await s.client().from('items').update({ note: 'all' });
    expect(upd.status).toBe(400);
    expect(upd.error).toEqual({ code: '21000', message: 'UPDATE requires a WHERE clause', details: null, hint: null });
    const del = await s.client().from('items').delete();
    expect(del.status).toBe(400);
    expect(del.error).toEqual({ code: '21000', message: 'DELETE requires a WHERE clause', details: null, hint: null });
    const limited = await rest(s, 'items?id=gt.0&limit=1', { method: 'DELETE' });
    expect(limited.status).toBe(400);
    expect(await itemRows()).toEqual(before);
  });

  it('single() on a write that touches two rows is 406 and rolls back', async () => {
    const before = await itemRows();
    const r = await s.client().from('items').update({ note: 'both' }).in('id', [1, 2]).select().single();
    expect(r.status).toBe(406);
    expect(r.error).toMatchObject({ code: 'PGRST116', details: 'The result contains 2 rows' });
    const del = await s.client().from('items').delete().gt('id', 3).select().single();
    expect(del.status).toBe(406);
    expect(await itemRows()).toEqual(before);
    const ok = await s.client().from('items').update({ note: 'one' }).eq('id', 1).select('note').single();
    expect(ok.data).toEqual({ note: 'one' });
  });

  it('writes under RLS: a user changes only own rows, anon gets 401 when WITH CHECK fails', async () => {
    const alice = randomUUID();
    const bob = randomUUID();
    const a = await userClient(s, alice);
    const b = await userClient(s, bob);
    const ins = await a.from('todos').insert({ title: 'alice 1' }).select('title, owner').single();
    expect(ins.data).toEqual({ title: 'alice 1', owner: alice });
    const forged = await a.from('todos').insert({ title: 'as bob', owner: bob });
    expect(forged.status).toBe(403);
    expect(forged.error).toMatchObject({ code: '42501', message: 'new row violates row-level security policy for table "todos"' });
    const anon = await s.client().from('todos').insert({ title: 'anon', owner: alice });
    expect(anon.status).toBe(401);
    expect(anon.error).toMatchObject({ code: '42501' });
    const anonRaw = await rest(s, 'items', { method: 'POST', body: '{"id":40,"name":"neg","qty":-1}' });
    expect(anonRaw.status).toBe(401);
    expect(anonRaw.headers.get('www-authenticate')).toBe('Bearer');
    expect(anonRaw.headers.get('proxy-status')).toBe('PostgREST; error=42501');
    const steal = await b.from('todos').update({ title: 'stolen' }).eq('title', 'alice 1').select();
    expect(steal.data).toEqual([]);
    const wipe = await b.from('todos').delete().eq('owner', alice).select();
    expect(wipe.data).toEqual([]);
    const mine = await a.from('todos').select('title');
    expect(mine.data).toEqual([{ title: 'alice 1' }]);
    const theirs = await b.from('todos').select('title');
    expect(theirs.data).toEqual([]);
    const all = await s.serviceClient().from('todos').select('title').eq('owner', alice);
    expect(all.data).toEqual([{ title: 'alice 1' }]);
  });

  it('anon may insert without being able to read back when no representation is asked (RETURNING 1)', async () => {
    await s.deps.db.exec(`
      create table if not exists public.messages (id serial primary key, body text not null);
      alter table public.messages enable row level security;
      create policy "Anyone can leave a message" on public.messages for insert to anon with check (true);
    `);
    await reloadSchema(s);
    const r = await s.client().from('messages').insert({ body: 'hi' });
    expect(r.status).toBe(201);
    const back = await s.client().from('messages').insert({ body: 'hi again' }).select();
    expect(back.status).toBe(401);
    const { rows } = await s.deps.db.query(`select body from public.messages`);
    expect(rows).toEqual([{ body: 'hi' }]);
  });

  it('a read-only request cannot write', async () => {
    const r = await rest(s, 'rpc/add_item?p_id=50&p_name=x');
    expect(r.status).toBe(405);
    expect((await r.json()).code).toBe('25006');
    expect((await itemRows()).some((x) => x.id === 50)).toBe(false);
  });
});

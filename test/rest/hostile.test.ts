import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';
import { installFixtures, rest, seedItems, userToken } from './fixtures';

type Case = { method?: string; path: string; body?: string; headers?: Record<string, string> };

const HUGE = '9'.repeat(100_000);

/** Requests an attacker or a broken client might send; each must be refused with a 4xx and change nothing. */
const HOSTILE: Case[] = [
  { path: 'items?select=*,(' },
  { path: 'items?select=id,name)' },
  { path: 'items?select=(((' },
  { path: 'items?select=id;drop table items' },
  { path: 'items?select=id::text;drop table items--' },
  { path: 'items?select="id""; drop table items; --"' },
  { path: 'items?select=count()' },
  { path: 'items?select=todos(*)' },
  { path: 'items?select=...todos(*)' },
  { path: 'items?select=id->' },
  { path: 'items?select=alias:' },
  { path: 'items?select=a:b:c' },
  { path: 'items?select=id::' },
  { path: 'items?select=id::text(10)' },
  { path: 'items?select=id::pg_sleep' },
  { path: 'items?select=id,,name' },
  { path: 'items?select=,' },
  { path: 'items?select=n%C3%A4me' },
  { path: 'items?select=na%00me' },
  { path: 'items?id=eq.1;drop table items' },
  { path: "items?id=eq.1' or '1'='1" },
  { path: 'items?id=foo.1' },
  { path: 'items?id=eq' },
  { path: 'items?id=not.not.eq.1' },
  { path: 'items?id=in.1,2' },
  { path: 'items?id=in.(1,2' },
  { path: 'items?id=in.("1)' },
  { path: 'items?id=in.(1,"a\\"b")' },
  { path: 'items?id=is.maybe' },
  { path: 'items?id=like.*' },
  { path: 'items?id=eq.1)' },
  { path: 'items?id=eq.%D9%A1%D9%A2' },
  { path: 'items?name=eq.a%00b' },
  { path: 'items?id=eq.%zz' },
  { path: 'items?id=eq.%C0%AF' },
  { path: `items?id=eq.${HUGE}` },
  { path: 'items?limit=-1' },
  { path: 'items?limit=NaN' },
  { path: 'items?offset=-5' },
  { path: 'items?limit=1e3' },
  { path: 'items?limit=99999999999999999999' },
  { path: 'items?order=id;drop table items' },
  { path: 'items?order=id.desc;delete from items' },
  { path: 'items?order=(select 1)' },
  { path: 'items?order=id.sideways' },
  { path: 'items?order=nope.asc' },
  { path: 'items?order=' },
  { path: 'items?order=id.asc.asc' },
  { path: 'items?%22nope%22=eq.1' },
  // A NUL would end the statement's text inside a JSON key's literal: refused as a parse error.
  { path: 'todos?select=meta->>%22a%00b%22' },
  { path: 'todos?meta->>a%00b=eq.1&select=nope' },
  // Embedding: unknown relationships, past its bounds, and filters for what is not embedded.
  { path: 'items?select=id,todos(*)' },
  { path: 'todos?select=*,a(b(c(d(e(*)))))' },
  { path: `todos?select=${Array.from({ length: 17 }, (_, i) => `e${i}(*)`).join(',')}` },
  { path: 'items?select=id&todos.order=id' },
  { path: 'items?select=id,todos!inner!left!x(*)' },
  { path: 'items?id%22;%20drop%20table%20items;%20--=eq.1' },
  { path: 'items?na%00me=eq.x' },
  { path: 'items?todos.id=eq.1' },
  { path: 'items?id-%3E%3E=eq.1' },
  { path: 'items?or=(id.eq.1,id.zz.2)' },
  { path: 'items?and=(id.eq.1' },
  { path: 'items?or=(id.eq.1))' },
  { path: 'items?or=(id.eq.1,,id.eq.2)' },
  { path: 'items?or=(id.eq.1,nope.eq.2)' },
  { path: `items?or=(${'and('.repeat(2000)}id.eq.1${')'.repeat(2001)}` },
  { path: 'items?or=(id.eq.1);drop table items' },
  { method: 'DELETE', path: 'items?or=(id.eq.1,id.eq.2' },
  { path: 'items;drop table items' },
  { path: 'pg_user' },
  { path: 'auth.users' },
  { path: 'items', headers: { 'Accept-Profile': 'public;drop table items' } },
  // An execution plan is the service role's only (rest/explain.ts).
  { path: 'items', headers: { Accept: 'application/vnd.pgrst.plan+json; options=analyze' } },
  { method: 'PATCH', path: 'items?select=id', body: '{"note":"all"}' },
  { method: 'PATCH', path: 'items?id=eq.1', body: '{"id;drop table items":1}' },
  { method: 'PATCH', path: 'items?id=eq.1', body: `{"qty":"${HUGE}"}` },
  { method: 'PATCH', path: 'items?id=eq.1;drop table items', body: '{"note":"x"}' },
  { method: 'PATCH', path: 'items?id=eq.1', body: '{"note":"\\u0000"}' },
  { method: 'PATCH', path: 'items?id=eq.1', body: '["not","an","object"]' },
  { method: 'DELETE', path: 'items?id=not.is.null;' },
  { method: 'DELETE', path: 'items?limit=1&id=gt.0' },
  { method: 'DELETE', path: 'items' },
  { method: 'DELETE', path: 'items?order=id' },
  { method: 'POST', path: 'items', body: '{"id":99,"name":"x","qty":"1; drop table items"}' },
  { method: 'POST', path: 'items?columns=id,"nope"', body: '{"id":99,"name":"x"}' },
  { method: 'POST', path: 'items', body: '{"id":99,"name":"x"' },
  { method: 'POST', path: 'items', body: '[{"id":99,"name":"x"},null]' },
  { method: 'POST', path: 'items', body: '{"id":99,"name":"x","qty":-1}' },
  { method: 'PUT', path: 'items?id=eq.1', body: '{"id":1,"name":"x"}' },
  { method: 'POST', path: 'rpc/add_numbers', body: '{"a":"1; drop table items","b":2}' },
  { path: 'rpc/add_numbers?a=1;drop table items&b=2' },
  { method: 'POST', path: 'rpc/pg_sleep', body: '{"seconds":10}' },
  { method: 'POST', path: 'rpc/add_numbers(1,2)', body: '{}' },
  { method: 'POST', path: 'rpc/..%2F..%2Fetc', body: '{}' },
  { method: 'POST', path: 'rpc/touch_item', body: '{"item_id":1,"x\\"); drop table items; --":1}' },
  { path: 'rpc/touch_item?item_id=1' },
];

/** Injection attempts inside values of text columns: legal requests that must simply match nothing. */
const HARMLESS_VALUES = [
  "items?name=eq.x'; drop table items; --",
  'items?name=eq.%27%20or%201%3D1--',
  'items?name=in.("a\'); delete from items; --")',
  'items?name=like.*%27%3B%20delete%20from%20items%3B--',
  'items?note=eq.%F0%9F%92%A3%20%E2%80%AE',
  // JSON keys are SQL literals (decision 051): quotes and backslashes stay inside the key.
  "todos?select=meta->>a'b",
  "todos?select=meta->>a\\'%3B%20drop%20table%20items%3B--&meta->>x\\'--=eq.1",
];

describe('REST under hostile input', () => {
  let s: TestServer;
  const checksum = async () => {
    const { rows } = await s.deps.db.query<{ items: string; todos: string }>(
      `select (select md5(coalesce(string_agg(t::text, '|' order by id), '')) from public.items t) as items,
              (select md5(coalesce(string_agg(t::text, '|' order by id), '')) from public.todos t) as todos`,
    );
    return rows[0];
  };

  beforeAll(async () => {
    s = await startTestServer();
    await installFixtures(s);
    await seedItems(s);
  });
  afterAll(() => s.stop());

  it(`answers ${HOSTILE.length} hostile requests with 4xx and changes nothing`, async () => {
    expect(HOSTILE.length).toBeGreaterThanOrEqual(50);
    const before = await checksum();
    const user = await userToken(s, '00000000-0000-4000-8000-000000000001');
    const failures: string[] = [];
    for (const [i, c] of HOSTILE.entries()) {
      // Every other case runs as a signed-in user, so that both roles see each input.
      const auth: Record<string, string> = i % 2 ? { Authorization: `Bearer ${user}` } : {};
      const r = await rest(s, c.path, { method: c.method ?? 'GET', ...(c.body !== undefined ? { body: c.body } : {}), headers: { ...auth, ...c.headers } });
      const text = await r.text();
      if (r.status < 400 || r.status >= 500) failures.push(`${c.method ?? 'GET'} ${c.path.slice(0, 80)} → ${r.status} ${text.slice(0, 200)}`);
      // Node refuses a 100 kB request line itself (431, no body); every other refusal is PostgREST-shaped.
      else if (r.status !== 431) {
        const body = JSON.parse(text) as Record<string, unknown>;
        if (typeof body.message !== 'string') failures.push(`${c.path.slice(0, 80)} → body without message: ${text.slice(0, 200)}`);
        if ('code' in body && !('details' in body && 'hint' in body)) failures.push(`${c.path.slice(0, 80)} → not PostgREST's shape: ${text.slice(0, 200)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(await checksum()).toEqual(before);
    // Each request naming an unknown table or column waits for the next catalogue load, at most one a second.
  }, 60_000);

  it('treats injection inside values as plain data', async () => {
    const before = await checksum();
    for (const path of HARMLESS_VALUES) {
      const r = await rest(s, path);
      expect(r.status, path).toBe(200);
      expect(await r.json(), path).toEqual([]);
    }
    expect(await checksum()).toEqual(before);
  });

  it('still serves normal requests afterwards', async () => {
    const { data } = await s.client().from('items').select('id').order('id');
    expect(data).toHaveLength(5);
  });
});

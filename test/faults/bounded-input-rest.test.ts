import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_TOO_DEEP, MAX_JSON_DEPTH } from '../../src/server/http/json-body';
import { MAX_IN_VALUES, MAX_LOGIC_DEPTH, MAX_ORDER_TERMS, MAX_SELECT_ITEMS } from '../../src/server/rest/query-limits';
import { startTestServer, type TestServer } from '../helpers/server';
import { installFixtures, rest, seedItems, userToken } from '../rest/fixtures';

/** `depth` arrays inside one another around a 1. */
const nestedArrays = (depth: number) => '['.repeat(depth) + '1' + ']'.repeat(depth);

async function expectRefused(r: Response, code: string, detailsOrMessage: RegExp) {
  expect(r.status).toBe(400);
  const body = (await r.json()) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(['code', 'details', 'hint', 'message']);
  expect(body.code).toBe(code);
  expect(`${String(body.message)} ${String(body.details)}`).toMatch(detailsOrMessage);
}

describe('bounded input to /rest/v1', () => {
  let s: TestServer;
  const itemCount = async () => (await s.deps.db.query<{ n: number }>('select count(*)::int as n from public.items')).rows[0]!.n;
  const stillAnswers = async () => {
    expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
    expect((await s.client().rpc('add_numbers', { a: 1, b: 2 })).data).toBe(3);
  };

  beforeAll(async () => {
    s = await startTestServer();
    await installFixtures(s);
    await seedItems(s);
  });
  afterAll(() => s.stop());

  describe('JSON nesting', () => {
    it('refuses a 10,000-deep rpc body with 400 PGRST102, and keeps answering', async () => {
      const r = await rest(s, 'rpc/echo_json', { method: 'POST', body: `{"payload":${nestedArrays(10_000)}}` });
      await expectRefused(r, 'PGRST102', new RegExp(JSON_TOO_DEEP));
      await stillAnswers();
    });

    it('refuses a 10,000-deep insert and stores nothing', async () => {
      const before = await itemCount();
      const deep = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
      const r = await rest(s, 'items', { method: 'POST', body: `{"id":900,"name":"deep","note":${deep}}` });
      await expectRefused(r, 'PGRST102', new RegExp(JSON_TOO_DEEP));
      const patch = await rest(s, 'items?id=eq.1', { method: 'PATCH', body: `{"note":${nestedArrays(10_000)}}` });
      await expectRefused(patch, 'PGRST102', new RegExp(JSON_TOO_DEEP));
      expect(await itemCount()).toBe(before);
      await stillAnswers();
    });

    it(`takes a body nested ${MAX_JSON_DEPTH} levels deep`, async () => {
      // The body's own object is the first level.
      const payload = JSON.parse(nestedArrays(MAX_JSON_DEPTH - 1)) as unknown;
      const { data, error } = await s.client().rpc('echo_json', { payload });
      expect(error).toBeNull();
      expect((data as { payload: unknown }).payload).toEqual(payload);
      const r = await rest(s, 'rpc/echo_json', { method: 'POST', body: `{"payload":${nestedArrays(MAX_JSON_DEPTH)}}` });
      await expectRefused(r, 'PGRST102', new RegExp(JSON_TOO_DEEP));
    });
  });

  describe('array dimensions', () => {
    // PostgreSQL takes arrays of at most 6 dimensions and refuses more as a 500 (54000).
    const arrays = (depth: number) => '['.repeat(depth) + '"a"' + ']'.repeat(depth);
    const braces = (depth: number) => '{'.repeat(depth) + 'a' + '}'.repeat(depth);

    it('refuses an array argument or column value nested deeper than PostgreSQL takes, with 400', async () => {
      const r = await rest(s, 'rpc/echo_json', { method: 'POST', body: `{"payload":1,"tags":${arrays(8)}}` });
      await expectRefused(r, 'PGRST102', /'tags' nests arrays more than 6 deep/);
      const literal = await rest(s, `rpc/echo_json?payload=1&tags=${braces(7)}`);
      await expectRefused(literal, 'PGRST102', /'tags' nests arrays/);
      const ok = await rest(s, 'rpc/echo_json', { method: 'POST', body: `{"payload":1,"tags":${arrays(2)}}` });
      expect(ok.status).toBe(200);

      const headers = { Authorization: `Bearer ${await userToken(s, '00000000-0000-0000-0000-00000000000a')}` };
      const insert = await rest(s, 'todos', { method: 'POST', headers, body: `{"title":"t","tags":${arrays(7)}}` });
      await expectRefused(insert, 'PGRST102', /'tags' nests arrays/);
      await expectRefused(await rest(s, `todos?tags=cs.${braces(7)}`, { headers }), 'PGRST100', /arrays may nest at most 6 levels/);
      expect((await rest(s, `todos?tags=cs.${braces(1)}`, { headers })).status).toBe(200);
      await stillAnswers();
    });
  });

  describe('query string limits', () => {
    it('refuses a select list of 2,000 columns with 400 PGRST100, not PostgreSQL’s 54011', async () => {
      const wide = Array.from({ length: 2000 }, () => 'id').join(',');
      await expectRefused(await rest(s, `items?select=${wide}`), 'PGRST100', new RegExp(`at most ${MAX_SELECT_ITEMS} items`));
      await expectRefused(await rest(s, `rpc/items_above?min_qty=0&select=${wide}`), 'PGRST100', /at most/);
      // Each star is every column again.
      const stars = Array.from({ length: 200 }, () => '*').join(',');
      await expectRefused(await rest(s, `items?select=${stars}`), 'PGRST100', /\* only once/);
      await stillAnswers();
    });

    it(`takes ${MAX_SELECT_ITEMS} select items`, async () => {
      const select = Array.from({ length: MAX_SELECT_ITEMS }, (_, i) => `c${i}:id`).join(',');
      const r = await rest(s, `items?select=${select}&id=eq.1`);
      expect(r.status).toBe(200);
      expect(Object.keys(((await r.json()) as Record<string, unknown>[])[0]!)).toHaveLength(MAX_SELECT_ITEMS);
    });

    it('refuses too many order terms', async () => {
      const order = (n: number) => Array.from({ length: n }, () => 'id.desc').join(',');
      expect((await rest(s, `items?order=${order(MAX_ORDER_TERMS)}`)).status).toBe(200);
      await expectRefused(await rest(s, `items?order=${order(2000)}`), 'PGRST100', new RegExp(`at most ${MAX_ORDER_TERMS} terms`));
    });

    it('refuses or/and trees nested too deep', async () => {
      const tree = (levels: number) => `(${'and('.repeat(levels - 1)}id.eq.1${')'.repeat(levels - 1)})`;
      expect((await rest(s, `items?or=${tree(MAX_LOGIC_DEPTH)}`)).status).toBe(200);
      await expectRefused(await rest(s, `items?or=${tree(MAX_LOGIC_DEPTH + 1)}`), 'PGRST100', /nest at most/);
      await expectRefused(await rest(s, `items?or=${tree(2000)}`), 'PGRST100', /nest at most/);
    });

    it('refuses an in list that is too long', async () => {
      const list = (n: number) => Array.from({ length: n }, (_, i) => i).join(',');
      expect((await rest(s, `items?id=in.(${list(MAX_IN_VALUES)})`)).status).toBe(200);
      await expectRefused(await rest(s, `items?id=in.(${list(MAX_IN_VALUES + 1)})`), 'PGRST100', new RegExp(`at most ${MAX_IN_VALUES} values`));
      await stillAnswers();
    });
  });
});

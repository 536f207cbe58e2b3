import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/server/db/database';
import { invokeFunction } from '../helpers/functions';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, type TestUser } from '../helpers/users';

// Each request's statements count against its caller's share of the database through the view
// that shareByCaller puts on the request (decision 053), which every handler of the shared route
// groups must take (requestDeps). test/faults/fair-share.test.ts shows the share itself at work on
// REST; this shows that auth, REST, the functions and the public API all take the view, and whose.

let s: TestServer;
let user: TestUser;
/** The callers whose views sent statements, in order, while `seen` was being filled. */
let seen: string[] | undefined;

beforeAll(async () => {
  s = await startTestServer();
  user = await createTestUser(s);
  const shared = s.deps.db;
  const forCaller = shared.forCaller!.bind(shared);
  shared.forCaller = (key: string): Database => {
    const view = forCaller(key);
    const note = () => seen?.push(key);
    return {
      ...view,
      query: (sql, params, name) => (note(), view.query(sql, params, name)),
      exec: (sql) => (note(), view.exec(sql)),
      transaction: (fn, deadlines) => (note(), view.transaction(fn, deadlines)),
      batch: (statements, deadlines) => (note(), view.batch(statements, deadlines)),
    };
  };
});
afterAll(() => s.stop());

/** The callers whose views `request` sent statements through. */
async function callersOf(request: () => PromiseLike<unknown>): Promise<Set<string>> {
  seen = [];
  try {
    await request();
    return new Set(seen);
  } finally {
    seen = undefined;
  }
}

describe("the database's fair share by caller", () => {
  const me = () => `user:${user.id}`;

  let token: string;

  it('takes the signed-in user on auth, REST and the functions', async () => {
    expect(await callersOf(() => user.client.auth.getUser())).toEqual(new Set([me()]));
    expect(await callersOf(() => user.client.from('services').select('id'))).toEqual(new Set([me()]));
    const made = await callersOf(async () => {
      const r = await invokeFunction(user.client, 'api-token', { name: 'wiring', scopes: ['services:read'] });
      expect(r.status).toBe(200);
      token = (r.body as { token: string }).token;
    });
    expect(made).toEqual(new Set([me()]));
  });

  it("takes a visitor's address", async () => {
    const visitor = await callersOf(() => s.client().from('products').select('id'));
    expect([...visitor]).toEqual([expect.stringMatching(/^address:/)]);
  });

  it("takes the public API's token owner once the token is known, and its address before", async () => {
    const callers = await callersOf(async () => {
      const res = await fetch(`${s.url}/api/v1/services`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
    });
    expect([...callers]).toEqual([expect.stringMatching(/^address:/), me()]);
  });
});

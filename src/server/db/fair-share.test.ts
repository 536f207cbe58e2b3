import { describe, expect, it } from 'vitest';
import type { Database } from './database';
import { classifyDbFailure } from './db-failure';
import { shareFairly } from './fair-share';

/** A database whose statements end when the test says so, counting how many run at once. */
function fakeDatabase() {
  const pending: (() => void)[] = [];
  let running = 0;
  let most = 0;
  const statement = async () => {
    running += 1;
    most = Math.max(most, running);
    await new Promise<void>((r) => pending.push(r));
    running -= 1;
    return { rows: [], rowCount: 0, fields: [] };
  };
  const db: Database = {
    kind: 'postgres',
    query: statement as Database['query'],
    exec: async () => void (await statement()),
    transaction: (fn) => fn(db),
    batch: async () => [await statement()],
    close: async () => {},
  };
  return { db, finishAll: () => pending.splice(0).forEach((r) => r()), most: () => most, running: () => running };
}

/**
 * A turn of the event loop: every statement started so far has gone as far as it can, since
 * the slots (and the fake database) hand over in promises alone, never on a timer.
 */
const tick = () => new Promise((r) => setImmediate(r));

describe('shareFairly', () => {
  it("runs at most a caller's slots at once, while another caller goes straight in", async () => {
    const f = fakeDatabase();
    const db = shareFairly(f.db, 2);
    // Six requests of one user, each with its view.
    const burst = Array.from({ length: 6 }, () => db.forCaller!('user:a').query('select 1'));
    await tick();
    expect(f.running()).toBe(2);
    const other = db.forCaller!('user:b').query('select 1');
    await tick();
    expect(f.running()).toBe(3);
    while (f.running() > 0) {
      f.finishAll();
      await tick();
    }
    await Promise.all([...burst, other]);
    expect(f.most()).toBe(3);
  });

  it('refuses a statement that found no slot in time with a 429 failure', async () => {
    const f = fakeDatabase();
    const db = shareFairly(f.db, 1, 20);
    const first = db.forCaller!('address:203.0.113.7').query('select 1');
    const refused = await db.forCaller!('address:203.0.113.7')
      .query('select 1')
      .catch((e: unknown) => e);
    expect(classifyDbFailure(refused)).toMatchObject({ kind: 'caller_busy', status: 429, retryAfter: 1 });
    f.finishAll();
    await first;
  });

  it("lets a request's statements started while it holds a slot through, so a transaction cannot wait on its own request", async () => {
    const f = fakeDatabase();
    const request = shareFairly(f.db, 1, 20).forCaller!('user:a');
    const done = request.transaction(async () => request.query('select 1'));
    await tick();
    expect(f.running()).toBe(1);
    f.finishAll();
    await expect(done).resolves.toBeDefined();
  });

  it('counts every statement a request sends through the database the test replaced (`this`)', async () => {
    const f = fakeDatabase();
    const db = shareFairly(f.db, 1, 20);
    const seen: string[] = [];
    const query = db.query;
    db.query = (sql, params, name) => {
      seen.push(sql);
      return query(sql, params, name);
    };
    const done = db.forCaller!('user:a').query('select 2');
    await tick();
    expect(seen).toEqual(['select 2']);
    f.finishAll();
    await done;
  });

  it('does not limit work outside a request (the worker, start-up)', async () => {
    const f = fakeDatabase();
    const db = shareFairly(f.db, 1, 20);
    const all = Array.from({ length: 3 }, () => db.query('select 1'));
    await tick();
    expect(f.running()).toBe(3);
    f.finishAll();
    await Promise.all(all);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_EMBEDDED_STATEMENT_TIMEOUT_MS } from '../../src/server/db/statement-watchdog';
import { TEST_DB } from '../helpers/database';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, type TestUser } from '../helpers/users';
import { reloadSchema } from './fixtures';

/**
 * Nothing a customer sends can freeze the server (issue 33, item 1). A statement runs under a
 * deadline on both databases: PostgreSQL's statement_timeout for the caller's role, and on PGlite,
 * where every other request waits for the one statement running, the statement watchdog at
 * EMBEDDED_STATEMENT_TIMEOUT_MS. Meanwhile everyone else is answered.
 */

/** `(?b)`: basic syntax, whose groups and bounds the old check did not see; it ran 6.4 s on PGlite. */
const BASIC_SYNTAX = '(?b)\\(.\\{0,105\\}\\)\\{0,105\\}x';
/**
 * The slow caller's deadline: the authenticated role's 8 s on PostgreSQL; on PGlite the watchdog's,
 * half its default here, as the suite's machine is shared and loaded (every other answer is held
 * by up to two deadlines: the slow statement running, and its caller's next queued before it).
 */
const DEADLINE_MS = TEST_DB === 'pglite' ? DEFAULT_EMBEDDED_STATEMENT_TIMEOUT_MS / 2 : 8000;
/** What another client may wait, at most, for each answer while the slow caller is served. */
const OTHERS_WITHIN_MS = 500;

describe('a statement past its deadline ends with 504, and everyone else is answered meanwhile', () => {
  let s: TestServer;
  let slow: TestUser;
  let other: TestUser;
  beforeAll(async () => {
    s = await startTestServer({ EMBEDDED_STATEMENT_TIMEOUT_MS: String(DEADLINE_MS) });
    // No check recognises it: a function that counts for minutes unless it is stopped.
    await s.rawDb.exec(`
      create function public.slow_report() returns bigint language plpgsql stable as $$
        declare n bigint := 0;
        begin
          loop n := n + 1; end loop;
        end $$;
      grant execute on function public.slow_report() to authenticated;
      create table public.deadline_notes (id int primary key, note text);
      grant insert, select on public.deadline_notes to authenticated;
      create function public.note_then_count(p_id int) returns bigint language plpgsql volatile as $$
        begin
          insert into public.deadline_notes values (p_id, 'written before the deadline');
          return public.slow_report();
        end $$;
      grant execute on function public.note_then_count(int) to authenticated;`);
    await reloadSchema(s);
    [slow, other] = await Promise.all([createTestUser(s), createTestUser(s)]);
  });
  afterAll(() => s.stop());

  const asUser = (u: TestUser, path: string, init: RequestInit = {}) =>
    fetch(`${s.url}${path}`, { ...init, headers: { apikey: s.anonKey, Authorization: `Bearer ${u.token}`, 'Content-Type': 'application/json' } });

  // A bound in wall time on a shared machine: a neighbour's burst can stretch one answer, so the
  // test runs again then; a server that lets the slow caller hold the others fails every try.
  it(
    'refuses the (?b) pattern at once, cuts the slow function at its deadline, and answers another client within 500 ms throughout',
    { retry: 2 },
    async () => {
      // The other client's first answers, before the slow caller starts: its paths are compiled.
      for (let i = 0; i < 3; i++)
        await Promise.all([fetch(`${s.url}/config.json`), asUser(other, '/rest/v1/products?select=id,name')].map(async (r) => (await r).arrayBuffer()));
      let slowDone = false;
      const slowCaller = (async () => {
        try {
          const pattern = await asUser(slow, `/rest/v1/products?select=id&description=match.${encodeURIComponent(BASIC_SYNTAX)}`);
          const rounds = TEST_DB === 'pglite' ? 4 : 1;
          const answers: { status: number; body: { code?: string; message?: string }; ms: number }[] = [];
          for (let i = 0; i < rounds; i++) {
            const started = performance.now();
            const r = await asUser(slow, '/rest/v1/rpc/slow_report', { method: 'POST', body: '{}' });
            answers.push({ status: r.status, body: (await r.json()) as { code?: string; message?: string }, ms: performance.now() - started });
          }
          return { pattern: { status: pattern.status, body: (await pattern.json()) as { details?: string } }, answers };
        } finally {
          slowDone = true;
        }
      })();

      const waits: { what: string; ms: number; status: number }[] = [];
      const timed = async (what: string, request: () => Promise<Response>) => {
        const started = performance.now();
        const r = await request();
        await r.arrayBuffer();
        waits.push({ what, ms: performance.now() - started, status: r.status });
      };
      while (!slowDone) {
        await Promise.all([timed('config', () => fetch(`${s.url}/config.json`)), timed('read', () => asUser(other, '/rest/v1/products?select=id,name'))]);
      }

      const { pattern, answers } = await slowCaller;
      expect(pattern.status).toBe(400);
      expect(pattern.body.details).toMatch(/embedded options/);
      for (const a of answers) {
        expect(a.status).toBe(504);
        expect(a.body).toMatchObject({ code: '57014', message: 'canceling statement due to statement timeout' });
        expect(a.ms).toBeGreaterThanOrEqual(DEADLINE_MS - 50);
      }
      expect(waits.length).toBeGreaterThan(4);
      expect(waits.filter((w) => w.status !== 200)).toEqual([]);
      expect(
        waits.filter((w) => w.ms > OTHERS_WITHIN_MS),
        JSON.stringify(waits.map((w) => Math.round(w.ms))),
      ).toEqual([]);
    },
  );

  it('rolls back what the cancelled statement wrote, and the next statements run', async () => {
    const r = await asUser(slow, '/rest/v1/rpc/note_then_count', { method: 'POST', body: JSON.stringify({ p_id: 1 }) });
    expect(r.status).toBe(504);
    // Straight after the cancel: no flag of it is left to cancel the next statement.
    const { rows } = await s.rawDb.query<{ n: number }>('select count(*)::int as n from public.deadline_notes');
    expect(rows[0]!.n).toBe(0);
    const read = await asUser(other, '/rest/v1/products?select=id');
    expect(read.status).toBe(200);
    const write = await asUser(slow, '/rest/v1/deadline_notes', { method: 'POST', body: JSON.stringify({ id: 2, note: 'after' }) });
    expect(write.status).toBe(201);
  });
});

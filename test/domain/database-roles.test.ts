import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * What the API roles may do in the database itself, whatever a request manages to run as them
 * (issue 15): no TRUNCATE (row-level security does not apply to it), no write that no policy
 * could ever allow, and the second-factor rule on every table and function they reach.
 */
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.stop());

const API_ROLES = ['anon', 'authenticated'] as const;
/** Each table the API exposes, with its key column. */
const KEYS: Record<string, string> = {
  admin_users: 'user_id',
  contact_messages: 'id',
  credit_purchases: 'id',
  credit_transactions: 'id',
  dev_access_users: 'user_id',
  products: 'id',
  profiles: 'id',
  service_events: 'id',
  user_credits: 'user_id',
};
const TABLES = Object.keys(KEYS);

class Rollback extends Error {}

/** Runs `sql` as `role` and always rolls back: the error's SQLSTATE, or 'ran' when it was allowed. */
async function asRole(role: string, sql: string): Promise<string> {
  try {
    await s.deps.db.transaction(async (tx) => {
      await tx.query(`set local role ${role}`);
      await tx.query(sql);
      throw new Rollback();
    });
  } catch (e) {
    if (e instanceof Rollback) return 'ran';
    return (e as { code?: string }).code ?? String(e);
  }
  return 'ran';
}

describe('the API roles in the database', () => {
  it('cannot TRUNCATE any table', async () => {
    for (const role of API_ROLES) {
      for (const table of TABLES) expect(`${role} ${table}: ${await asRole(role, `truncate public.${table} cascade`)}`).toBe(`${role} ${table}: 42501`);
    }
  });

  it('cannot write where no policy could allow it: refused by privilege, before any row is looked at', async () => {
    const attempts = (table: string) => [
      `insert into public.${table} default values`,
      `update public.${table} set ${KEYS[table]} = ${KEYS[table]}`,
      `delete from public.${table}`,
    ];
    for (const role of API_ROLES) {
      for (const table of TABLES.filter((t) => t !== 'profiles')) {
        for (const sql of attempts(table)) expect(`${role}: ${sql}: ${await asRole(role, sql)}`).toBe(`${role}: ${sql}: 42501`);
      }
      for (const sql of ['insert into public.profiles default values', 'delete from public.profiles']) {
        expect(`${role}: ${sql}: ${await asRole(role, sql)}`).toBe(`${role}: ${sql}: 42501`);
      }
    }
    expect(await asRole('anon', 'update public.profiles set full_name = null')).toBe('42501');
    // A profile's own columns stay writable by its owner (the policy says whose).
    expect(await asRole('authenticated', 'update public.profiles set full_name = null')).toBe('ran');
  });

  it('hold no write grant that no permissive policy for that command and role could use', async () => {
    const { rows } = await s.deps.db.query(
      `select g.table_name, g.grantee, g.privilege_type
         from information_schema.role_table_grants g
        where g.table_schema = 'public' and g.grantee in ('anon', 'authenticated') and g.privilege_type <> 'SELECT'
          and not exists (select 1 from pg_policies p
                           where p.schemaname = 'public' and p.tablename = g.table_name and p.permissive = 'PERMISSIVE'
                             and p.cmd in ('ALL', g.privilege_type) and (g.grantee = any (p.roles) or 'public' = any (p.roles)))
        order by 1, 2, 3`,
    );
    expect(rows).toEqual([]);
  });

  it('meet the second-factor rule on every table a signed-in user reaches', async () => {
    const { rows } = await s.deps.db.query(
      `select c.relname from pg_class c
        where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p')
          and has_table_privilege('authenticated', c.oid, 'select')
          and not exists (select 1 from pg_policies p
                           where p.schemaname = 'public' and p.tablename = c.relname and p.permissive = 'RESTRICTIVE'
                             and p.cmd = 'ALL' and p.qual = '( SELECT private.meets_required_aal() AS meets_required_aal)')
        order by 1`,
    );
    expect(rows).toEqual([]);
  });

  it('meet it at the start of every SECURITY DEFINER function a signed-in user can call', async () => {
    const { rows } = await s.deps.db.query(
      `select p.proname from pg_proc p
        where p.pronamespace = 'public'::regnamespace and p.prosecdef
          and has_function_privilege('authenticated', p.oid, 'execute')
          and substring(p.prosrc from '\\mbegin\\M\\s+([^;]*;)') is distinct from 'perform private.require_aal2_if_enrolled();'
          -- create_service_securely: private.require_user() performs it, first of all, in declare.
          and p.prosrc !~ '^\\s*declare\\s+uid uuid := private\\.require_user\\(\\);'
        order by 1`,
    );
    expect(rows).toEqual([]);
  });
});

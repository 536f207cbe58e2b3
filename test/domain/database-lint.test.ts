import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * Supabase's database linter (splinter), its WARN and ERROR lints that concern a schema like ours,
 * each written here from the lint's documented rule and run on the freshly migrated database. A
 * new policy, foreign key, index, view or function that brings a finding back fails this test.
 *
 * Still reported by splinter, by design: 0029 authenticated_security_definer_function_executable
 * on the spec's RPCs, which are SECURITY DEFINER (authorisation lives in them) and check their
 * caller first (database-roles.test.ts), and 0028 on the six whose answer to anon is the product's:
 * is_user_admin and has_dev_access answer it false (credits-and-roles.test.ts), and four service and
 * account functions say "You must be logged in" (services.test.ts, account-deletion.test.ts).
 */
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.stop());

/** Schemas that are the platform's, not ours, as the lints leave them out. */
const PLATFORM = `array['pg_catalog', 'information_schema', 'auth', 'extensions', 'storage', 'vault', 'realtime', 'graphql', 'graphql_public', 'cron', 'net']`;

/** Runs a lint's query with an empty search_path: policies and defaults then print every schema, as the lints need. */
async function findings(sql: string): Promise<unknown[]> {
  return s.deps.db.transaction(async (tx) => {
    await tx.query(`set local search_path = ''`);
    return (await tx.query(sql)).rows;
  });
}

it('0003 auth_rls_initplan: every auth.<function>() in a policy is evaluated once per statement, as (select auth.<function>())', async () => {
  // Stricter than the lint, which passes a policy once one call is wrapped: every call must be.
  expect(
    await findings(`
      select p.schemaname || '.' || p.tablename as "table", p.policyname as policy
        from pg_policies p
       where p.schemaname <> all (${PLATFORM})
         and (select count(*) from regexp_matches(coalesce(p.qual, '') || ' ' || coalesce(p.with_check, ''), 'auth\\.(uid|jwt|role|email)\\(\\)', 'g'))
           > (select count(*) from regexp_matches(lower(coalesce(p.qual, '') || ' ' || coalesce(p.with_check, '')), 'select\\s+auth\\.(uid|jwt|role|email)\\(\\)', 'g'))
       order by 1, 2`),
  ).toEqual([]);
});

it('0006 multiple_permissive_policies: at most one permissive policy per table, role and action', async () => {
  expect(
    await findings(`
      select n.nspname || '.' || c.relname as "table", r.rolname as role, a.action, array_agg(p.polname::text order by p.polname) as policies
        from pg_policy p
        join pg_class c on c.oid = p.polrelid
        join pg_namespace n on n.oid = c.relnamespace
        join pg_roles r on p.polroles @> array[r.oid] or p.polroles = array[0::oid]
        cross join lateral unnest(case p.polcmd when 'r' then array['SELECT'] when 'a' then array['INSERT'] when 'w' then array['UPDATE']
                                                when 'd' then array['DELETE'] else array['SELECT', 'INSERT', 'UPDATE', 'DELETE'] end) as a (action)
       where p.polpermissive and c.relkind = 'r' and n.nspname <> all (${PLATFORM})
         and r.rolname not like 'pg\\_%' and not r.rolbypassrls
       group by 1, 2, 3
      having count(*) > 1
       order by 1, 2, 3`),
  ).toEqual([]);
});

// A covering index leads with the key's columns: it serves the lookups a delete of the referenced
// row makes as well as one on those columns alone would.
it('0001 unindexed_foreign_keys: every foreign key has an index that leads with its columns', async () => {
  expect(
    await findings(`
      select ct.conrelid::regclass::text as "table", ct.conname as foreign_key
        from pg_constraint ct
        join pg_class c on c.oid = ct.conrelid
       where ct.contype = 'f' and c.relnamespace::regnamespace::text <> all (${PLATFORM})
         and not exists (select 1 from pg_index i
                          where i.indrelid = ct.conrelid and i.indisvalid
                            and (string_to_array(i.indkey::text, ' ')::smallint[])[1:cardinality(ct.conkey)] = ct.conkey)
       order by 1, 2`),
  ).toEqual([]);
});

it('0007 policy_exists_rls_disabled and 0013 rls_disabled_in_public: every table with policies, and every table in public, has RLS on', async () => {
  expect(
    await findings(`
      select n.nspname || '.' || c.relname as "table"
        from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where c.relkind in ('r', 'p') and not c.relrowsecurity
         and (n.nspname = 'public' or exists (select 1 from pg_policy p where p.polrelid = c.oid))
       order by 1`),
  ).toEqual([]);
});

it('0009 duplicate_index: no two indexes of a table are the same', async () => {
  expect(
    await findings(`
      select i.indrelid::regclass::text as "table", array_agg(i.indexrelid::regclass::text order by i.indexrelid::regclass::text) as indexes
        from pg_index i join pg_class c on c.oid = i.indrelid
       where c.relnamespace::regnamespace::text <> all (${PLATFORM})
       group by i.indrelid, i.indkey::text, i.indclass::text, i.indcollation::text, i.indoption::text,
                coalesce(pg_get_expr(i.indexprs, i.indrelid), ''), coalesce(pg_get_expr(i.indpred, i.indrelid), '')
      having count(*) > 1
       order by 1`),
  ).toEqual([]);
});

it('0011 function_search_path_mutable: every function of ours fixes its search_path', async () => {
  expect(
    await findings(`
      select p.oid::regprocedure::text as function
        from pg_proc p join pg_namespace n on n.oid = p.pronamespace
        left join pg_depend d on d.objid = p.oid and d.deptype = 'e'
       where n.nspname <> all (${PLATFORM}) and d.objid is null
         and not exists (select 1 from unnest(coalesce(p.proconfig, '{}')) as c (setting) where c.setting like 'search\\_path=%')
       order by 1`),
  ).toEqual([]);
});

it('0014 extension_in_public: no extension lives in the public schema', async () => {
  expect(await findings(`select e.extname from pg_extension e where e.extnamespace = 'public'::regnamespace`)).toEqual([]);
});

it('0002 auth_users_exposed and 0015 rls_references_user_metadata: nothing the API reads shows auth.users, and no policy trusts user_metadata', async () => {
  expect(
    await findings(`
      select c.oid::regclass::text as view
        from pg_class c
        join pg_rewrite r on r.ev_class = c.oid
        join pg_depend d on d.objid = r.oid
       where c.relkind in ('v', 'm') and d.refobjid = 'auth.users'::regclass
         and (has_table_privilege('anon', c.oid, 'select') or has_table_privilege('authenticated', c.oid, 'select'))
      union all
      select p.schemaname || '.' || p.tablename || ': ' || p.policyname
        from pg_policies p
       where coalesce(p.qual, '') || coalesce(p.with_check, '') ~ 'user_metadata'`),
  ).toEqual([]);
});

it('0016 materialized_view_in_api and 0017 foreign_table_in_api: the API reaches neither', async () => {
  expect(
    await findings(`
      select c.oid::regclass::text as relation
        from pg_class c
       where c.relkind in ('m', 'f')
         and (has_table_privilege('anon', c.oid, 'select') or has_table_privilege('authenticated', c.oid, 'select'))`),
  ).toEqual([]);
});

it('0010 security_definer_view: every view in the API schema reads as its caller (security_invoker)', async () => {
  expect(
    await findings(`
      select c.oid::regclass::text as view
        from pg_class c
       where c.relkind = 'v' and c.relnamespace = 'public'::regnamespace
         and not (lower(coalesce(c.reloptions::text, '{}'))::text[] && array['security_invoker=1', 'security_invoker=true', 'security_invoker=yes', 'security_invoker=on'])
         and not exists (select 1 from pg_depend d where d.objid = c.oid and d.deptype = 'e')`),
  ).toEqual([]);
});

it('0028 anon_security_definer_function_executable: anon can call no SECURITY DEFINER function of the API schema but those whose answer to it is part of the product (migration 0034)', async () => {
  expect(
    await findings(`
      select p.oid::regprocedure::text as function
        from pg_proc p
       where p.pronamespace = 'public'::regnamespace and p.prosecdef and has_function_privilege('anon', p.oid, 'execute')
         and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')
       order by 1`),
  ).toEqual([
    { function: 'public.create_service_securely(text,text,text,uuid)' },
    { function: 'public.delete_own_account(text)' },
    { function: 'public.extend_service_expiration(uuid,uuid,integer)' },
    { function: 'public.has_dev_access(uuid)' },
    { function: 'public.is_user_admin(uuid)' },
    { function: 'public.manage_service_operation(uuid,text,jsonb)' },
  ]);
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server';
import { signInAal1, verifyNewFactor } from '../../helpers/mfa';
import { createTestUser } from '../../helpers/users';
import { reloadSchema } from '../fixtures';
import { FILM_SQL } from './film-schema';
import { conformance, type ConformanceCase } from './harness';

const REPRESENTATION = 'docs/references/api/resource_representation.rst';
const CSV = 'src/library/PostgREST/Query/SqlFragment.hs asCsvF';
const NEGOTIATE = 'src/library/PostgREST/Plan/Negotiate.hs';
const MEDIA = 'src/library/PostgREST/MediaType.hs';
const PLAN = 'docs/references/observability.rst "Execution plan"';

/** Values CSV must quote, a NULL and an empty string; a set-returning function; a counter a call bumps. */
const MEDIA_SQL = `
create table public.csv_quirks (id int primary key, txt text);
insert into public.csv_quirks values (1, 'a, "b"'), (2, null), (3, ''), (4, 'back\\slash'), (5, 'plain');
create table public.counter (n int);
insert into public.counter values (0);
grant select, insert, update, delete on public.csv_quirks, public.counter to anon, authenticated;
create function public.all_films() returns setof public.films language sql stable as $$ select * from public.films order by id $$;
create function public.bump() returns setof public.counter language sql volatile as $$ update public.counter set n = n + 1 returning * $$;
`;

const CSV_TYPE = 'text/csv; charset=utf-8';
const csvFilms = [
  'id,title,year',
  '1,"Workers Leaving The Lumière Factory In Lyon",1895',
  '2,"The Dickson Experimental Sound Film",1894',
  '3,"The Haunted Castle",1896',
].join('\n');

const pgrst107 = (types: string) => ({ code: 'PGRST107', message: `None of these media types are available: ${types}`, details: null, hint: null });

const csv: ConformanceCase[] = [
  {
    name: 'text/csv: a line of column names, then the rows quoted as PostgreSQL quotes a record',
    source: `${REPRESENTATION} "Builtin Media Type Handlers"; ${CSV}`,
    request: { path: 'films?select=id,title,year&order=id', headers: { Accept: 'text/csv' } },
    expect: { status: 200, headers: { 'Content-Type': CSV_TYPE, 'Content-Range': '0-2/*' }, text: csvFilms },
  },
  {
    name: 'commas and quotes are quoted, a quote doubled, a backslash doubled, NULL is nothing and an empty string ""',
    source: CSV,
    request: { path: 'csv_quirks?order=id&id=lt.10', headers: { Accept: 'text/csv' } },
    expect: { status: 200, text: 'id,txt\n1,"a, ""b"""\n2,\n3,""\n4,"back\\\\slash"\n5,plain' },
  },
  {
    name: 'no rows: no header either, only the line break',
    source: `${CSV} (the header comes from a row)`,
    request: { path: 'films?id=eq.99', headers: { Accept: 'text/csv' } },
    expect: { status: 200, headers: { 'Content-Type': CSV_TYPE, 'Content-Range': '*/*' }, text: '\n' },
  },
  {
    name: 'a page of CSV with its count',
    source: 'docs/references/api/pagination_count.rst "Exact Count"',
    request: { path: 'films?select=title&order=id&limit=1', headers: { Accept: 'text/csv', Prefer: 'count=exact' } },
    expect: { status: 206, headers: { 'Content-Range': '0-0/3' }, text: 'title\n"Workers Leaving The Lumière Factory In Lyon"' },
  },
  {
    name: 'a set-returning function as CSV',
    source: `${REPRESENTATION} ("for all API endpoints")`,
    request: { path: 'rpc/all_films?select=id,year', headers: { Accept: 'text/csv' } },
    expect: { status: 200, headers: { 'Content-Type': CSV_TYPE, 'Content-Range': '0-2/*' }, text: 'id,year\n1,1895\n2,1894\n3,1896' },
  },
  {
    name: 'the representation of a write as CSV',
    source: `${NEGOTIATE} (ActRelationMut with return=representation)`,
    request: {
      method: 'POST',
      path: 'csv_quirks?select=id,txt',
      headers: { Accept: 'text/csv', Prefer: 'return=representation' },
      body: { id: 10, txt: 'x y' },
    },
    expect: { status: 201, headers: { 'Content-Type': CSV_TYPE }, text: 'id,txt\n10,"x y"' },
  },
  {
    name: 'the better quality wins',
    source: 'src/library/PostgREST/ApiRequest.hs iAcceptMediaType (parseHttpAccept)',
    request: { path: 'films?select=id&order=id', headers: { Accept: 'application/json;q=0.5, text/csv' } },
    expect: { status: 200, headers: { 'Content-Type': CSV_TYPE }, text: 'id\n1\n2\n3' },
  },
  {
    name: 'at equal quality a named type comes before */*',
    source: 'src/library/PostgREST/ApiRequest.hs iAcceptMediaType (parseHttpAccept: parameters minus wildcards)',
    request: { path: 'films?select=id&order=id', headers: { Accept: '*/*, text/csv' } },
    expect: { status: 200, headers: { 'Content-Type': CSV_TYPE }, text: 'id\n1\n2\n3' },
  },
  {
    name: 'vnd.pgrst.array+json is JSON',
    source: MEDIA,
    request: { path: 'films?select=id&id=eq.1', headers: { Accept: 'application/vnd.pgrst.array+json' } },
    expect: { status: 200, headers: { 'Content-Type': 'application/json; charset=utf-8' }, json: [{ id: 1 }] },
  },
];

const refused: ConformanceCase[] = [
  {
    name: 'a type not produced is 406 PGRST107',
    source: `${REPRESENTATION} ("Any unrecognized media type will throw an error"); src/library/PostgREST/Error.hs`,
    request: { path: 'films', headers: { Accept: 'text/html' } },
    expect: { status: 406, json: pgrst107('text/html') },
  },
  {
    name: 'every type is listed, best first, without its quality',
    source: `${NEGOTIATE}; ${MEDIA} toMime`,
    request: { path: 'films', headers: { Accept: 'application/xml;q=0.9, text/html' } },
    expect: { status: 406, json: pgrst107('text/html, application/xml') },
  },
  {
    name: 'a plan for the anonymous key is a type not produced, as with db-plan-enabled off',
    source: `${NEGOTIATE} (mtPlanToNothing); ${PLAN}`,
    request: { path: 'films', headers: { Accept: 'application/vnd.pgrst.plan+json' } },
    expect: { status: 406, json: pgrst107('application/vnd.pgrst.plan+json; for="application/json"') },
  },
  {
    name: 'for a signed-in user too; the plan is named with its format, for and options',
    source: `${MEDIA} toMime`,
    request: { path: 'films', headers: { Accept: 'application/vnd.pgrst.plan; for="text/csv"; options=verbose|analyze' }, as: 'user' },
    expect: { status: 406, json: pgrst107('application/vnd.pgrst.plan+text; for="text/csv"; options=analyze|verbose') },
  },
  {
    name: 'the next acceptable type answers',
    source: NEGOTIATE,
    request: { path: 'films?select=id&id=eq.1', headers: { Accept: 'application/vnd.pgrst.plan, application/json' } },
    expect: { status: 200, headers: { 'Content-Type': 'application/json; charset=utf-8' }, json: [{ id: 1 }] },
  },
];

const plans: ConformanceCase[] = [
  {
    name: 'the service role gets the plan as JSON, named with what it is for',
    source: `${PLAN}; ${MEDIA} toContentType`,
    request: { path: 'films?select=title&order=id', headers: { Accept: 'application/vnd.pgrst.plan+json' }, as: 'service' },
    expect: {
      status: 200,
      headers: { 'Content-Type': 'application/vnd.pgrst.plan+json; for="application/json"; charset=utf-8', 'Content-Range': null, 'Preference-Applied': null },
    },
  },
  {
    name: 'as supabase-js explain() asks for it, with no options',
    source: `${MEDIA} tokenizeMediaType (a parameter without a value is dropped)`,
    request: { path: 'films', headers: { Accept: 'application/vnd.pgrst.plan+text; for="application/json"; options=;' }, as: 'service' },
    expect: { status: 200, headers: { 'Content-Type': 'application/vnd.pgrst.plan+text; for="application/json"; charset=utf-8' } },
  },
  {
    name: 'the options in their order, for another representation',
    source: `${MEDIA} decodeMediaType`,
    request: { path: 'films', headers: { Accept: 'application/vnd.pgrst.plan; for="text/csv"; options=verbose|analyze' }, as: 'service' },
    expect: { status: 200, headers: { 'Content-Type': 'application/vnd.pgrst.plan+text; for="text/csv"; options=analyze|verbose; charset=utf-8' } },
  },
  {
    name: 'a plan for a representation not produced is 406',
    source: `${NEGOTIATE} (lookupHandler of the plan's for)`,
    request: { path: 'films', headers: { Accept: 'application/vnd.pgrst.plan; for="text/xml"' }, as: 'service' },
    expect: { status: 406, json: pgrst107('application/vnd.pgrst.plan+text; for="text/xml"') },
  },
];

conformance('Media types: CSV, plans and PGRST107', [...csv, ...refused, ...plans], { sql: MEDIA_SQL });

describe('Media types: what a plan runs', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ RATE_LIMITS_ENABLED: 'false' });
    await s.deps.db.exec(FILM_SQL + MEDIA_SQL);
    await reloadSchema(s);
  });
  afterAll(() => s.stop());

  const asService = (path: string, accept: string, init: RequestInit = {}) =>
    fetch(`${s.url}/rest/v1/${path}`, {
      ...init,
      headers: { apikey: s.serviceRoleKey, Authorization: `Bearer ${s.serviceRoleKey}`, Accept: accept, 'Content-Type': 'application/json' },
    });
  const counter = async () => (await s.deps.db.query<{ n: number }>('select n from public.counter')).rows[0]!.n;

  it('JSON is EXPLAIN (FORMAT JSON) of the statement, a line of its own', async () => {
    const r = await asService('films?select=title&order=id', 'application/vnd.pgrst.plan+json');
    const body = await r.text();
    expect(body.endsWith('\n')).toBe(true);
    const plan = JSON.parse(body) as [{ Plan: { 'Node Type': string; Plans?: unknown[] } }];
    expect(plan[0].Plan['Node Type']).toBe('Aggregate');
  });

  it('text is EXPLAIN in its lines; analyze, verbose and the others reach EXPLAIN', async () => {
    const text = await (await asService('films?select=title', 'application/vnd.pgrst.plan')).text();
    expect(text).toMatch(/^Aggregate {2}\(cost=.*\n/);
    const analyzed = await (await asService('films?select=title', 'application/vnd.pgrst.plan; options=analyze|verbose')).text();
    expect(analyzed).toMatch(/actual (time|rows)=/);
    expect(analyzed).toMatch(/Output: /);
  });

  it('without analyze a write is only planned; with analyze it runs once, as PostgREST commits it', async () => {
    const before = await counter();
    expect((await asService('rpc/bump', 'application/vnd.pgrst.plan+json', { method: 'POST', body: '{}' })).status).toBe(200);
    expect((await asService('counter?n=gte.0', 'application/vnd.pgrst.plan', { method: 'DELETE' })).status).toBe(200);
    expect(await counter()).toBe(before);
    expect((await asService('rpc/bump', 'application/vnd.pgrst.plan; options=analyze', { method: 'POST', body: '{}' })).status).toBe(200);
    expect(await counter()).toBe(before + 1);
  });

  it('an admin may have a plan, at the level their second factor requires; other users get 406', async () => {
    const admin = await createTestUser(s, { admin: true });
    const user = await createTestUser(s);
    const plan = (token: string) =>
      fetch(`${s.url}/rest/v1/films?select=title`, { headers: { apikey: s.anonKey, Authorization: `Bearer ${token}`, Accept: 'application/vnd.pgrst.plan' } });
    const ok = await plan(admin.token);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toMatch(/^Aggregate/);
    const refused = await plan(user.token);
    expect(refused.status).toBe(406);
    expect(await refused.json()).toMatchObject({ code: 'PGRST107' });
    // With a verified factor, the admin's password-only session is not enough.
    await verifyNewFactor(admin);
    const aal1 = await signInAal1(s, admin);
    const token = (await aal1.auth.getSession()).data.session!.access_token;
    expect((await plan(token)).status).toBe(406);
  });
});

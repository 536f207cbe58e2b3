import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server';
import { reloadSchema, rest } from '../fixtures';
import { FILM_SQL } from './film-schema';
import { conformance, type ConformanceCase } from './harness';

const PREFS = 'docs/references/api/preferences.rst';
const COUNT = 'docs/references/api/pagination_count.rst';
const RESPONSE = 'src/library/PostgREST/Response.hs';
const PREFERENCES = 'src/library/PostgREST/ApiRequest/Preferences.hs';
const MAIN_TX = 'src/library/PostgREST/MainTx.hs';
const ERRORS = 'src/library/PostgREST/Error.hs';

/**
 * Beside the films: tiobe_pls as PostgREST's upsert spec has it; scratch, whose rows the write cases
 * change, each its own; stale_estimates, analyzed with 10 rows of which 7 are gone since, so that
 * the planner's estimate (10) and the exact count (3) differ; films analyzed, so that its estimate
 * is exact; a deferred unique constraint; and functions returning a set, a value and nothing, and
 * one that changes every scratch row.
 */
const PREFER_SQL = `
create table public.tiobe_pls (name text primary key, rank int);
insert into public.tiobe_pls values ('Python', 1), ('Java', 2), ('C', 3);
create table public.scratch (id int primary key, note text);
insert into public.scratch select g, 'n' || g from generate_series(1, 10) g;
create table public.stale_estimates (id int);
insert into public.stale_estimates select generate_series(1, 10);
analyze public.stale_estimates;
delete from public.stale_estimates where id > 3;
analyze public.films;
create table public.deferred (col int unique deferrable initially deferred);
insert into public.deferred values (1);
grant select, insert, update, delete on public.tiobe_pls, public.scratch, public.stale_estimates, public.deferred to anon, authenticated;
create function public.all_films() returns setof public.films language sql stable as $$ select * from public.films order by id $$;
create function public.film_count() returns bigint language sql stable as $$ select count(*) from public.films $$;
create function public.noop() returns void language sql volatile as $$ select $$;
create function public.renumber() returns setof public.scratch language sql volatile as $$ update public.scratch set note = 'renumbered' returning * $$;
`;

const workers = 'Workers Leaving The Lumière Factory In Lyon';

const pgrst124 = (n: number) => ({
  code: 'PGRST124',
  message: 'Query result exceeds max-affected preference constraint',
  details: `The query affects ${n} rows`,
  hint: null,
});

const counts: ConformanceCase[] = [
  {
    name: 'count=exact counts every row: a page of them is 206 Partial Content',
    source: `${COUNT} "Exact Count"`,
    request: { path: 'films?select=id&order=id&limit=1', headers: { Prefer: 'count=exact' } },
    expect: { status: 206, headers: { 'Content-Range': '0-0/3', 'Preference-Applied': 'count=exact' }, json: [{ id: 1 }] },
  },
  {
    name: 'HEAD answers the same status and range, without a body',
    source: `${COUNT} "Exact Count" (curl -I)`,
    request: { method: 'HEAD', path: 'films?limit=1', headers: { Prefer: 'count=exact' } },
    expect: { status: 206, headers: { 'Content-Range': '0-0/3', 'Content-Type': 'application/json; charset=utf-8' }, text: '' },
  },
  {
    name: 'count=planned is the planner estimate of the counted rows (exact here: films was analyzed)',
    source: `${COUNT} "Planned Count"`,
    request: { path: 'films?select=id&order=id&limit=1', headers: { Prefer: 'count=planned' } },
    expect: { status: 206, headers: { 'Content-Range': '0-0/3', 'Preference-Applied': 'count=planned' }, json: [{ id: 1 }] },
  },
  {
    name: 'count=planned follows the statistics, stale or not',
    source: `${COUNT} "Planned Count" (accuracy depends on the statistics)`,
    request: { path: 'stale_estimates?select=id&order=id&limit=1', headers: { Prefer: 'count=planned' } },
    expect: { status: 206, headers: { 'Content-Range': '0-0/10', 'Preference-Applied': 'count=planned' }, json: [{ id: 1 }] },
  },
  {
    name: 'count=exact of the same rows',
    source: `${COUNT} "Exact Count"`,
    request: { path: 'stale_estimates?select=id&order=id&limit=1', headers: { Prefer: 'count=exact' } },
    expect: { status: 206, headers: { 'Content-Range': '0-0/3' }, json: [{ id: 1 }] },
  },
  {
    name: 'count=estimated without db-max-rows is the larger of exact and planned',
    source: `${MAIN_TX} actionResult (EstimatedCount: tableTotal > Nothing)`,
    request: { path: 'stale_estimates?select=id&order=id&limit=1', headers: { Prefer: 'count=estimated' } },
    expect: { status: 206, headers: { 'Content-Range': '0-0/10', 'Preference-Applied': 'count=estimated' }, json: [{ id: 1 }] },
  },
  {
    name: 'count=estimated where the estimate is not larger is the exact count',
    source: `${COUNT} "Estimated Count"`,
    request: { path: 'films?select=id&id=eq.1', headers: { Prefer: 'count=estimated' } },
    expect: { status: 200, headers: { 'Content-Range': '0-0/1' }, json: [{ id: 1 }] },
  },
  {
    name: 'an update counts the rows it changed',
    source: `${RESPONSE} MutationUpdate`,
    request: {
      method: 'PATCH',
      path: 'scratch?id=in.(2,3)&select=id&order=id',
      headers: { Prefer: 'return=representation, count=exact' },
      body: { note: 'patched' },
    },
    expect: {
      status: 200,
      headers: { 'Content-Range': '0-1/2', 'Preference-Applied': 'return=representation, count=exact' },
      json: [{ id: 2 }, { id: 3 }],
    },
  },
  {
    name: 'count=planned on a write is echoed but gives no total',
    source: `${RESPONSE} MutationUpdate (shouldCount)`,
    request: { method: 'PATCH', path: 'scratch?id=eq.1', headers: { Prefer: 'count=planned' }, body: { note: 'planned' } },
    expect: { status: 204, headers: { 'Content-Range': '0-0/*', 'Preference-Applied': 'count=planned' } },
  },
  {
    name: 'a delete reports no range, only its count',
    source: `${RESPONSE} MutationDelete (contentRangeH 1 0)`,
    request: { method: 'DELETE', path: 'scratch?id=eq.10', headers: { Prefer: 'count=exact' } },
    expect: { status: 204, headers: { 'Content-Range': '*/1', 'Preference-Applied': 'count=exact' } },
  },
  {
    name: 'a function returning one value is one row: counted, 0-0/1',
    source: `${RESPONSE} CallReadPlan; src/library/PostgREST/Query/SqlFragment.hs pageCountSelectF`,
    request: { method: 'POST', path: 'rpc/film_count', headers: { Prefer: 'count=exact' }, body: {} },
    expect: { status: 200, headers: { 'Content-Range': '0-0/1', 'Preference-Applied': 'count=exact' }, json: 3 },
  },
  {
    name: 'a function returning one value, not counted',
    source: `${RESPONSE} CallReadPlan`,
    request: { method: 'POST', path: 'rpc/film_count', body: {} },
    expect: { status: 200, headers: { 'Content-Range': '0-0/*', 'Preference-Applied': null }, json: 3 },
  },
  {
    name: 'a page of a set-returning function is 206 with its count',
    source: `${RESPONSE} CallReadPlan (rangeStatusHeader)`,
    request: { path: 'rpc/all_films?select=id&limit=2', headers: { Prefer: 'count=exact' } },
    expect: { status: 206, headers: { 'Content-Range': '0-1/3' }, json: [{ id: 1 }, { id: 2 }] },
  },
  {
    name: 'a void function answers 204 with its range',
    source: `${RESPONSE} CallReadPlan (funcReturnsVoid)`,
    request: { method: 'POST', path: 'rpc/noop', body: {} },
    expect: { status: 204, headers: { 'Content-Range': '0-0/*' }, text: '' },
  },
];

const upserts: ConformanceCase[] = [
  {
    name: 'an upsert that only updated answers 200',
    source: `${RESPONSE} MutationCreate (isInsertIfGTZero); src/library/PostgREST/Query/SqlFragment.hs addConfigPgrstInserted`,
    request: {
      method: 'POST',
      path: 'tiobe_pls',
      headers: { Prefer: 'return=representation, resolution=merge-duplicates' },
      body: [
        { name: 'Python', rank: 6 },
        { name: 'Java', rank: 2 },
      ],
    },
    expect: {
      status: 200,
      headers: { 'Preference-Applied': 'resolution=merge-duplicates, return=representation', 'Content-Range': '*/*' },
      json: [
        { name: 'Python', rank: 6 },
        { name: 'Java', rank: 2 },
      ],
    },
  },
  {
    name: 'an upsert that inserted a row answers 201',
    source: `${RESPONSE} MutationCreate (isInsertIfGTZero)`,
    request: {
      method: 'POST',
      path: 'tiobe_pls',
      headers: { Prefer: 'return=representation, resolution=merge-duplicates' },
      body: [
        { name: 'Rust', rank: 7 },
        { name: 'C', rank: 1 },
      ],
    },
    expect: {
      status: 201,
      headers: { 'Preference-Applied': 'resolution=merge-duplicates, return=representation' },
      json: [
        { name: 'Rust', rank: 7 },
        { name: 'C', rank: 1 },
      ],
    },
  },
  {
    name: 'an upsert that only updated answers 200 with return=minimal too',
    source: `${RESPONSE} MutationCreate`,
    request: { method: 'POST', path: 'tiobe_pls', headers: { Prefer: 'resolution=merge-duplicates' }, body: [{ name: 'Python', rank: 1 }] },
    expect: { status: 200, headers: { 'Preference-Applied': 'resolution=merge-duplicates', 'Content-Type': null }, text: '' },
  },
  {
    name: 'an upsert of nothing inserted nothing: 200',
    source: `${RESPONSE} MutationCreate (rsInserted absent)`,
    request: { method: 'POST', path: 'tiobe_pls', headers: { Prefer: 'return=representation, resolution=merge-duplicates' }, body: [] },
    expect: { status: 200, json: [] },
  },
  {
    name: 'ignoring duplicates is an insert: 201 though nothing was inserted',
    source: `src/library/PostgREST/Query/Statements.hs mainWrite (pgrst.inserted only when merging)`,
    request: {
      method: 'POST',
      path: 'tiobe_pls',
      headers: { Prefer: 'return=representation, resolution=ignore-duplicates' },
      body: [{ name: 'Java', rank: 99 }],
    },
    expect: { status: 201, headers: { 'Preference-Applied': 'resolution=ignore-duplicates, return=representation' }, json: [] },
  },
  {
    name: 'Preference-Applied lists resolution, missing, return, count, then handling',
    source: `${PREFERENCES} prefAppliedHeader`,
    request: {
      method: 'POST',
      path: 'tiobe_pls',
      headers: { Prefer: 'handling=lenient, count=exact, return=representation, missing=default, resolution=merge-duplicates' },
      body: [{ name: 'Go', rank: 9 }],
    },
    expect: {
      status: 201,
      headers: {
        'Preference-Applied': 'resolution=merge-duplicates, missing=default, return=representation, count=exact, handling=lenient',
        'Content-Range': '*/1',
      },
      json: [{ name: 'Go', rank: 9 }],
    },
  },
  {
    name: 'the first of two values of a preference is kept',
    source: `${PREFERENCES} fromHeaders ("only the first is used")`,
    request: { method: 'POST', path: 'scratch', headers: { Prefer: 'return=minimal, return=representation' }, body: { id: 20, note: 'first' } },
    expect: { status: 201, headers: { 'Preference-Applied': 'return=minimal' }, text: '' },
  },
];

const handling: ConformanceCase[] = [
  {
    name: 'handling=strict refuses invalid preferences',
    source: `${PREFS} "Strict or Lenient Handling"`,
    request: { path: 'films?select=id', headers: { Prefer: 'handling=strict, foo, bar' } },
    expect: {
      status: 400,
      headers: { 'Preference-Applied': null },
      json: { code: 'PGRST122', message: 'Invalid preferences given with handling=strict', details: 'Invalid preferences: foo, bar', hint: null },
    },
  },
  {
    name: 'handling=lenient ignores them',
    source: `${PREFS} "Strict or Lenient Handling"`,
    request: { path: 'films?select=id&id=eq.1', headers: { Prefer: 'handling=lenient, foo, bar' } },
    expect: { status: 200, headers: { 'Preference-Applied': 'handling=lenient' }, json: [{ id: 1 }] },
  },
  {
    name: 'a preference is one exact value: spaces around = make it invalid',
    source: `${PREFERENCES} fromHeaders (isUnacceptable)`,
    request: { path: 'films?select=id', headers: { Prefer: 'handling=strict, return = minimal' } },
    expect: {
      status: 400,
      json: { code: 'PGRST122', message: 'Invalid preferences given with handling=strict', details: 'Invalid preferences: return = minimal', hint: null },
    },
  },
  {
    name: 'tx is ignored, not echoed, where db-tx-end allows no override',
    source: `${PREFERENCES} fromHeaders (allowTxDbOverride); test/spec/Feature/RollbackSpec.hs "disallowed"`,
    request: { path: 'films?select=id&id=eq.1', headers: { Prefer: 'tx=commit' } },
    expect: { status: 200, headers: { 'Preference-Applied': null }, json: [{ id: 1 }] },
  },
];

const maxAffected: ConformanceCase[] = [
  {
    name: 'an update affecting more rows than max-affected is refused',
    source: `${PREFS} "Max Affected"; ${ERRORS}`,
    request: { method: 'PATCH', path: 'scratch?id=in.(4,5)', headers: { Prefer: 'handling=strict, max-affected=1' }, body: { note: 'too many' } },
    expect: { status: 400, headers: { 'Preference-Applied': null }, json: pgrst124(2) },
  },
  {
    name: 'so is a delete',
    source: `${PREFS} "Max Affected"`,
    request: { method: 'DELETE', path: 'scratch?id=in.(4,5)', headers: { Prefer: 'handling=strict, max-affected=1' } },
    expect: { status: 400, json: pgrst124(2) },
  },
  {
    name: 'within the limit it runs, and max-affected is echoed',
    source: `${PREFERENCES} prefAppliedHeader (max-affected with handling=strict)`,
    request: { method: 'PATCH', path: 'scratch?id=eq.7', headers: { Prefer: 'handling=strict, max-affected=1' }, body: { note: 'one' } },
    expect: { status: 204, headers: { 'Preference-Applied': 'handling=strict, max-affected=1', 'Content-Range': '0-0/*' } },
  },
  {
    name: 'with lenient handling max-affected is ignored',
    source: `${PREFS} "Max Affected" ("ignored with lenient handling")`,
    request: { method: 'PATCH', path: 'scratch?id=in.(8,9)', headers: { Prefer: 'handling=lenient, max-affected=1' }, body: { note: 'two' } },
    expect: { status: 204, headers: { 'Preference-Applied': 'handling=lenient', 'Content-Range': '0-1/*' } },
  },
  {
    name: 'a function returning more rows than max-affected is refused',
    source: `${PREFS} "Max Affected" (RPC)`,
    request: { method: 'POST', path: 'rpc/all_films?select=id', headers: { Prefer: 'handling=strict, max-affected=2' }, body: {} },
    expect: { status: 400, json: pgrst124(3) },
  },
  {
    name: 'a function within the limit answers, and max-affected is echoed',
    source: `${RESPONSE} responsePreferences (CallReadPlan)`,
    request: { method: 'POST', path: 'rpc/all_films?select=id', headers: { Prefer: 'handling=strict, max-affected=3' }, body: {} },
    expect: {
      status: 200,
      headers: { 'Preference-Applied': 'handling=strict, max-affected=3', 'Content-Range': '0-2/*' },
      json: [{ id: 1 }, { id: 2 }, { id: 3 }],
    },
  },
  {
    name: 'a function that returns no set cannot take a strict max-affected',
    source: `${PREFS} "Max Affected" (PGRST128); ${ERRORS}`,
    request: { method: 'POST', path: 'rpc/film_count', headers: { Prefer: 'handling=strict, max-affected=1' }, body: {} },
    expect: {
      status: 400,
      json: {
        code: 'PGRST128',
        message: 'Function must return SETOF or TABLE when max-affected preference is used with handling=strict',
        details: null,
        hint: null,
      },
    },
  },
  {
    name: 'a read is not limited, and max-affected is not echoed',
    source: `${RESPONSE} responsePreferences (WrappedReadPlan)`,
    request: { path: 'films?select=id&order=id', headers: { Prefer: 'handling=strict, max-affected=1' } },
    expect: { status: 200, headers: { 'Preference-Applied': 'handling=strict' }, json: [{ id: 1 }, { id: 2 }, { id: 3 }] },
  },
];

conformance('Prefer: count, resolution, handling and max-affected', [...counts, ...upserts, ...handling, ...maxAffected], { sql: PREFER_SQL });

const TX = `${PREFS} "Transaction End Preference"`;
const txFilm = { title: 'Rolled back', year: 2000 };

conformance(
  'Prefer: tx with REST_TX_END=commit-allow-override',
  [
    {
      name: 'tx=rollback answers as if it committed, and says so',
      source: `${TX}; ${PREFERENCES} prefAppliedHeader (return before tx)`,
      request: { method: 'POST', path: 'films?select=title,year', headers: { Prefer: 'tx=rollback, return=representation' }, body: txFilm },
      expect: { status: 201, headers: { 'Preference-Applied': 'return=representation, tx=rollback' }, json: [txFilm] },
    },
    {
      name: 'a read with tx=rollback',
      source: `test/spec/Feature/RollbackSpec.hs "allowed"`,
      request: { path: 'films?select=id&id=eq.1', headers: { Prefer: 'tx=rollback' } },
      expect: { status: 200, headers: { 'Preference-Applied': 'tx=rollback' }, json: [{ id: 1 }] },
    },
    {
      name: 'tx=commit is echoed',
      source: `test/spec/Feature/RollbackSpec.hs "allowed"`,
      request: { method: 'PATCH', path: 'films?id=eq.1&select=title', headers: { Prefer: 'return=representation, tx=commit' }, body: { title: workers } },
      expect: { status: 200, headers: { 'Preference-Applied': 'return=representation, tx=commit' }, json: [{ title: workers }] },
    },
    {
      name: 'tx, handling and max-affected in PostgREST order',
      source: `${PREFERENCES} prefAppliedHeader`,
      request: { method: 'DELETE', path: 'films?id=eq.2', headers: { Prefer: 'max-affected=10, handling=strict, tx=rollback' } },
      expect: { status: 204, headers: { 'Preference-Applied': 'tx=rollback, handling=strict, max-affected=10', 'Content-Range': '*/*' } },
    },
    {
      name: 'deferred constraints are checked before the rollback',
      source: `${MAIN_TX} optionalRollback (SET CONSTRAINTS ALL IMMEDIATE); test/spec/Feature/RollbackSpec.hs "raises deferred constraints"`,
      request: { method: 'POST', path: 'deferred', headers: { Prefer: 'tx=rollback' }, body: { col: 1 } },
      expect: {
        status: 409,
        headers: { 'Preference-Applied': null },
        json: {
          code: '23505',
          message: 'duplicate key value violates unique constraint "deferred_col_key"',
          details: 'Key (col)=(1) already exists.',
          hint: null,
        },
      },
    },
  ],
  { env: { REST_TX_END: 'commit-allow-override' }, sql: PREFER_SQL },
);

conformance(
  'Prefer: tx with REST_TX_END=rollback',
  [
    {
      name: 'every request rolls back, and tx is not echoed',
      source: `test/spec/Feature/RollbackSpec.hs "forced"`,
      request: { method: 'POST', path: 'films?select=title,year', headers: { Prefer: 'return=representation' }, body: txFilm },
      expect: { status: 201, headers: { 'Preference-Applied': 'return=representation' }, json: [txFilm] },
    },
    {
      name: 'tx=commit is ignored',
      source: `test/spec/Feature/RollbackSpec.hs "forced"`,
      request: { method: 'POST', path: 'films?select=title,year', headers: { Prefer: 'return=representation, tx=commit' }, body: txFilm },
      expect: { status: 201, headers: { 'Preference-Applied': 'return=representation' }, json: [txFilm] },
    },
  ],
  { env: { REST_TX_END: 'rollback' }, sql: PREFER_SQL },
);

conformance(
  'Prefer: tx with REST_TX_END=rollback-allow-override',
  [
    {
      name: 'tx=commit overrides the rollback, and is echoed',
      source: `${TX}; ${PREFERENCES} fromHeaders`,
      request: { method: 'POST', path: 'scratch', headers: { Prefer: 'tx=commit' }, body: { id: 40, note: 'kept' } },
      expect: { status: 201, headers: { 'Preference-Applied': 'tx=commit' }, text: '' },
    },
  ],
  { env: { REST_TX_END: 'rollback-allow-override' }, sql: PREFER_SQL },
);

/** A server over the films with PREFER_SQL, for what a request leaves in the database. */
function filmServer(env: Record<string, string> = {}): () => TestServer {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ RATE_LIMITS_ENABLED: 'false', ...env });
    await s.deps.db.exec(FILM_SQL + PREFER_SQL);
    await reloadSchema(s);
  });
  afterAll(() => s.stop());
  return () => s;
}

async function rows(s: TestServer, sql: string): Promise<unknown[]> {
  return (await s.deps.db.query(sql)).rows;
}

const post = (s: TestServer, path: string, prefer: string, body: unknown) =>
  rest(s, path, { method: 'POST', headers: { Prefer: prefer }, body: JSON.stringify(body) });

describe('Prefer: what stays in the database', () => {
  describe('REST_TX_END=commit (the default)', () => {
    const server = filmServer();

    it('refuses tx=rollback rather than commit what was asked to be rolled back (a deviation: PostgREST commits it)', async () => {
      const r = await post(server(), 'scratch', 'tx=rollback', { id: 30, note: 'never' });
      expect(r.status).toBe(400);
      expect(await r.json()).toEqual({
        code: 'PGRST122',
        message: 'Invalid preferences given with handling=strict',
        details: 'Invalid preferences: tx=rollback',
        hint: 'This server commits every request (REST_TX_END=commit): tx=rollback is refused rather than ignored',
      });
      expect(await rows(server(), 'select id from public.scratch where id = 30')).toEqual([]);
    });

    it('lists tx=rollback with the other invalid preferences under handling=strict', async () => {
      const r = await rest(server(), 'films?select=id', { headers: { Prefer: 'handling=strict, foo, tx=rollback' } });
      expect(await r.json()).toMatchObject({ code: 'PGRST122', details: 'Invalid preferences: foo, tx=rollback' });
    });

    it('max-affected exceeded changes nothing', async () => {
      const before = await rows(server(), 'select id, note from public.scratch order by id');
      const patch = await rest(server(), 'scratch?id=lt.5', {
        method: 'PATCH',
        headers: { Prefer: 'handling=strict, max-affected=3' },
        body: JSON.stringify({ note: 'changed' }),
      });
      expect(patch.status).toBe(400);
      const del = await rest(server(), 'scratch?id=lt.5', { method: 'DELETE', headers: { Prefer: 'handling=strict, max-affected=3' } });
      expect(await del.json()).toEqual(pgrst124(4));
      expect(await rows(server(), 'select id, note from public.scratch order by id')).toEqual(before);
    });

    it('a function over max-affected is rolled back with what it changed', async () => {
      const r = await post(server(), 'rpc/renumber', 'handling=strict, max-affected=2', {});
      expect(await r.json()).toEqual(pgrst124(10));
      expect(await rows(server(), `select id from public.scratch where note = 'renumbered'`)).toEqual([]);
    });

    it('an upsert counts what it inserted, not what it updated', async () => {
      const updated = await post(server(), 'tiobe_pls', 'resolution=merge-duplicates', [{ name: 'C', rank: 10 }]);
      expect(updated.status).toBe(200);
      expect(await rows(server(), `select rank from public.tiobe_pls where name = 'C'`)).toEqual([{ rank: 10 }]);
      const mixed = await post(server(), 'tiobe_pls', 'resolution=merge-duplicates', [
        { name: 'C', rank: 3 },
        { name: 'Zig', rank: 30 },
      ]);
      expect(mixed.status).toBe(201);
      expect(await rows(server(), `select name, rank from public.tiobe_pls where name in ('C', 'Zig') order by name`)).toEqual([
        { name: 'C', rank: 3 },
        { name: 'Zig', rank: 30 },
      ]);
    });
  });

  describe('REST_TX_END=commit-allow-override', () => {
    const server = filmServer({ REST_TX_END: 'commit-allow-override' });
    const films = () => rows(server(), 'select id, title, year from public.films order by id');
    const notes = () => rows(server(), 'select id, note from public.scratch order by id');

    it('tx=rollback leaves inserts, updates, deletes and function calls undone', async () => {
      const [filmsBefore, notesBefore] = [await films(), await notes()];
      expect((await post(server(), 'films', 'tx=rollback', { title: 'gone', year: 1 })).status).toBe(201);
      const patch = await rest(server(), 'films?id=eq.1', { method: 'PATCH', headers: { Prefer: 'tx=rollback' }, body: JSON.stringify({ year: 1 }) });
      expect(patch.status).toBe(204);
      expect((await rest(server(), 'films?id=eq.2', { method: 'DELETE', headers: { Prefer: 'tx=rollback' } })).status).toBe(204);
      const call = await post(server(), 'rpc/renumber?select=note&limit=1', 'tx=rollback', {});
      expect(await call.json()).toEqual([{ note: 'renumbered' }]);
      expect(await films()).toEqual(filmsBefore);
      expect(await notes()).toEqual(notesBefore);
    });

    it('tx=commit and no tx commit', async () => {
      expect((await post(server(), 'scratch', 'tx=commit', { id: 50, note: 'a' })).status).toBe(201);
      expect((await post(server(), 'scratch', '', { id: 51, note: 'b' })).status).toBe(201);
      expect(await rows(server(), 'select id from public.scratch where id >= 50 order by id')).toEqual([{ id: 50 }, { id: 51 }]);
    });
  });

  describe('REST_TX_END=rollback', () => {
    const server = filmServer({ REST_TX_END: 'rollback' });

    it('commits nothing, whatever tx asks', async () => {
      for (const prefer of ['', 'tx=commit', 'tx=rollback']) expect((await post(server(), 'scratch', prefer, { id: 60, note: prefer })).status).toBe(201);
      expect(await rows(server(), 'select id from public.scratch where id = 60')).toEqual([]);
    });
  });

  describe('REST_TX_END=rollback-allow-override', () => {
    const server = filmServer({ REST_TX_END: 'rollback-allow-override' });

    it('commits with tx=commit only', async () => {
      expect((await post(server(), 'scratch', 'tx=commit', { id: 70, note: 'kept' })).status).toBe(201);
      expect((await post(server(), 'scratch', '', { id: 71, note: 'gone' })).status).toBe(201);
      expect(await rows(server(), 'select id from public.scratch where id >= 70 order by id')).toEqual([{ id: 70 }]);
    });
  });
});

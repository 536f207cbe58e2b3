import { createClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';
import { FILM_SQL } from './conformance/film-schema';
import { reloadSchema } from './fixtures';

/**
 * Beside the documentation's film database: a synopsis of each film with its tsvector, and
 * screenings with a tsrange and an int4range, for the text search and range filters of supabase-js.
 */
const SCREENINGS_SQL = `
create table public.film_synopses (film_id int primary key references public.films(id), synopsis text, search tsvector);
insert into public.film_synopses (film_id, synopsis) values
  (1, 'Workers leave the factory gates at the end of their shift'),
  (2, 'A violinist plays into a phonograph horn while two men dance'),
  (3, 'A cavalier meets ghosts and a giant bat in a haunted castle');
update public.film_synopses set search = to_tsvector('english', synopsis);

create table public.screenings (id int primary key, film_id int references public.films(id), during tsrange, seats int4range);
insert into public.screenings values
  (1, 1, '[2024-03-01 18:00,2024-03-01 19:00)', '[1,50)'),
  (2, 3, '[2024-03-01 19:00,2024-03-01 20:30)', '[50,100)'),
  (3, 2, '[2024-03-02 18:00,2024-03-02 19:00)', '[100,150)');

grant select on public.film_synopses, public.screenings to anon, authenticated;
`;

describe('supabase-js calls', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ RATE_LIMITS_ENABLED: 'false' });
    await s.deps.db.exec(FILM_SQL + SCREENINGS_SQL);
    await reloadSchema(s);
  });
  afterAll(() => s.stop());

  /** The ids (or film ids) a query answered, failing on an error. */
  async function ids(query: PromiseLike<{ data: unknown; error: unknown }>): Promise<number[]> {
    const { data, error } = await query;
    expect(error).toBeNull();
    return (data as { id?: number; film_id?: number }[]).map((r) => r.id ?? r.film_id!);
  }
  const synopses = () => s.client().from('film_synopses').select('film_id').order('film_id');
  const films = () => s.client().from('films').select('id').order('id');
  const screenings = () => s.client().from('screenings').select('id').order('id');

  it('textSearch on a tsvector column: to_tsquery, plain, phrase and websearch, with a config', async () => {
    expect(await ids(synopses().textSearch('search', 'ghost & castle'))).toEqual([3]);
    expect(await ids(synopses().textSearch('search', 'haunted castles', { type: 'plain', config: 'english' }))).toEqual([3]);
    expect(await ids(synopses().textSearch('search', 'giant bat', { type: 'phrase', config: 'english' }))).toEqual([3]);
    expect(await ids(synopses().textSearch('search', 'bat giant', { type: 'phrase', config: 'english' }))).toEqual([]);
    expect(await ids(synopses().textSearch('search', '"factory gates" or violinist', { type: 'websearch', config: 'english' }))).toEqual([1, 2]);
    expect(await ids(synopses().textSearch('search', 'gates -factory', { type: 'websearch' }))).toEqual([]);
  });

  it('textSearch on a text column goes through to_tsvector, in the config given', async () => {
    expect(await ids(films().textSearch('title', 'haunted castles', { type: 'plain', config: 'english' }))).toEqual([3]);
    expect(await ids(films().textSearch('title', 'sound or factory', { type: 'websearch', config: 'english' }))).toEqual([1, 2]);
    // French stems "experimental" as experimental, English as experiment.
    expect(await ids(films().textSearch('title', 'experimental', { config: 'french' }))).toEqual([2]);
    expect(await ids(films().textSearch('title', 'experiment', { config: 'french' }))).toEqual([]);
  });

  it('negates a text search with not', async () => {
    expect(await ids(synopses().not('search', 'wfts(english)', 'castle'))).toEqual([1, 2]);
  });

  it('refuses a config that is no identifier, and passes on PostgreSQL’s word for an unknown one', async () => {
    const bad = await films().textSearch('title', 'castle', { config: 'pg_catalog.english' });
    expect({ status: bad.status, error: bad.error }).toEqual({
      status: 400,
      error: {
        code: 'PGRST100',
        message: '"failed to parse filter (fts(pg_catalog.english).castle)" (line 1, column 15)',
        details: 'unexpected "." expecting operator (eq, gt, ...)',
        hint: null,
      },
    });
    const unknown = await films().textSearch('title', 'castle', { type: 'plain', config: 'klingon' });
    expect({ status: unknown.status, error: unknown.error }).toEqual({
      status: 400,
      error: { code: '42704', message: 'text search configuration "klingon" does not exist', details: null, hint: null },
    });
  });

  it('rangeAdjacent on a tsrange', async () => {
    expect(await ids(screenings().rangeAdjacent('during', '[2024-03-01 19:00,2024-03-01 20:30)'))).toEqual([1]);
    expect(await ids(screenings().rangeAdjacent('during', '[2024-03-02 19:00,2024-03-03 00:00)'))).toEqual([3]);
  });

  it('rangeLt, rangeGt, rangeGte and rangeLte: sl, sr, nxl and nxr', async () => {
    expect(await ids(screenings().rangeLt('seats', '[50,60)'))).toEqual([1]);
    expect(await ids(screenings().rangeGt('seats', '[1,60)'))).toEqual([3]);
    expect(await ids(screenings().rangeGte('seats', '[50,60)'))).toEqual([2, 3]);
    expect(await ids(screenings().rangeLte('seats', '[1,100)'))).toEqual([1, 2]);
    expect(await ids(screenings().rangeLt('during', '[2024-03-01 19:00,2024-03-02 00:00)'))).toEqual([1]);
  });

  it('likeAnyOf, likeAllOf, ilikeAnyOf and ilikeAllOf', async () => {
    expect(await ids(films().likeAnyOf('title', ['*Castle', 'The Dickson*']))).toEqual([2, 3]);
    expect(await ids(films().likeAllOf('title', ['The*', '*Film']))).toEqual([2]);
    expect(await ids(films().ilikeAnyOf('title', ['%LYON', '%castle']))).toEqual([1, 3]);
    expect(await ids(films().ilikeAllOf('title', ['the%', '%sound%']))).toEqual([2]);
  });

  it('quantified comparisons through filter', async () => {
    expect(await ids(films().filter('id', 'eq(any)', '{1,3}'))).toEqual([1, 3]);
    expect(await ids(films().filter('rating', 'gt(all)', '{6.2,6.3}'))).toEqual([1]);
    expect(await ids(films().not('year', 'lt(any)', '{1895}'))).toEqual([1, 3]);
  });
  it("select('*, directors(*)') embeds the related row, and !inner filters by it", async () => {
    const { data, error } = await s.client().from('films').select('*, directors(*)').eq('id', 1);
    expect(error).toBeNull();
    expect(data).toEqual([
      {
        id: 1,
        director_id: 2,
        title: 'Workers Leaving The Lumière Factory In Lyon',
        year: 1895,
        rating: 7.1,
        language: 'silent',
        directors: { id: 2, first_name: 'Louis', last_name: 'Lumière' },
      },
    ]);
    const inner = await s.client().from('films').select('title, actors!inner(first_name)').eq('actors.first_name', 'Jehanne');
    expect(inner.error).toBeNull();
    expect(inner.data).toEqual([{ title: 'The Haunted Castle', actors: [{ first_name: 'Jehanne' }] }]);
    const counted = await s.client().from('directors').select('last_name, films!inner(id)', { count: 'exact', head: true }).eq('films.language', 'silent');
    expect(counted).toMatchObject({ error: null, count: 2 });
  });

  it('orders and limits an embedded resource through referencedTable, and answers an ambiguous embed 300', async () => {
    const { data, error } = await s
      .client()
      .from('films')
      .select('title, actors(last_name)')
      .order('id', { referencedTable: 'actors', ascending: false })
      .limit(1, { referencedTable: 'actors' })
      .eq('id', 3);
    expect(error).toBeNull();
    expect(data).toEqual([{ title: 'The Haunted Castle', actors: [{ last_name: "d'Alcy" }] }]);
    const ambiguous = await s.client().from('orders').select('*, addresses(*)');
    expect(ambiguous).toMatchObject({ status: 300, error: { code: 'PGRST201' } });
  });
});

/** The films, their years to change, and supabase-js's modifiers that set Prefer and Accept. */
function filmServer(env: Record<string, string> = {}): () => TestServer {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ RATE_LIMITS_ENABLED: 'false', ...env });
    await s.deps.db.exec(FILM_SQL);
    await reloadSchema(s);
  });
  afterAll(() => s.stop());
  return () => s;
}

/** The films as supabase-js types a database, as far as these tests write them. */
type FilmDatabase = {
  public: {
    Tables: {
      films: { Row: { id: number; year: number | null; language: string | null }; Insert: { year?: number }; Update: { year?: number }; Relationships: [] };
    };
    Views: Record<never, never>;
    Functions: Record<never, never>;
  };
};

/** maxAffected() is typed for PostgREST 13 and later only: a client that says it talks to one. */
function postgrest13(s: TestServer) {
  return createClient<FilmDatabase, { PostgrestVersion: '13' }>(s.url, s.anonKey, { auth: { persistSession: false, autoRefreshToken: false } });
}

const years = async (s: TestServer) => (await s.deps.db.query<{ year: number }>('select year from public.films order by id')).rows.map((r) => r.year);

describe('supabase-js Prefer and Accept modifiers', () => {
  const server = filmServer();

  it('maxAffected(1) refuses an update of two rows and changes nothing; one row goes through', async () => {
    const before = await years(server());
    const two = await postgrest13(server()).from('films').update({ year: 1900 }).eq('language', 'silent').maxAffected(1);
    expect(two.status).toBe(400);
    expect(two.error).toMatchObject({ code: 'PGRST124', details: 'The query affects 2 rows' });
    expect(await years(server())).toEqual(before);
    const one = await postgrest13(server()).from('films').update({ year: 1896 }).eq('id', 3).maxAffected(1);
    expect(one).toMatchObject({ status: 204, error: null });
  });

  it('csv() answers the rows as CSV text', async () => {
    const { data, error } = await server().client().from('films').select('id,year').order('id').csv();
    expect(error).toBeNull();
    expect(data).toBe('id,year\n1,1895\n2,1894\n3,1896');
  });

  it('rollback() is refused where the server commits every request', async () => {
    const { error, status } = await server().client().from('films').insert({ title: 'x' }).rollback();
    expect(status).toBe(400);
    expect(error).toMatchObject({ code: 'PGRST122', details: 'Invalid preferences: tx=rollback' });
    expect((await server().deps.db.query(`select 1 from public.films where title = 'x'`)).rows).toEqual([]);
  });

  it('explain() gives the service role the plan, text by default or JSON, and refuses anyone else', async () => {
    const text = await server().serviceClient().from('films').select('title').explain();
    expect(text.error).toBeNull();
    expect(text.data).toMatch(/^Aggregate/);
    const json = await server().serviceClient().from('films').select('title').explain({ format: 'json', analyze: true });
    expect(json.data).toMatchObject([{ Plan: { 'Node Type': 'Aggregate', 'Actual Rows': 1 } }]);
    const anon = await server().client().from('films').select('title').explain();
    expect(anon.status).toBe(406);
    expect(anon.error).toMatchObject({ code: 'PGRST107' });
  });
});

describe('supabase-js rollback() with REST_TX_END=commit-allow-override', () => {
  const server = filmServer({ REST_TX_END: 'commit-allow-override' });

  it('answers with what was written and keeps none of it', async () => {
    const { data, error, status } = await server().client().from('films').insert({ title: 'Rolled back', year: 2000 }).select('title, year').rollback();
    expect(error).toBeNull();
    expect(status).toBe(201);
    expect(data).toEqual([{ title: 'Rolled back', year: 2000 }]);
    expect((await server().deps.db.query(`select 1 from public.films where title = 'Rolled back'`)).rows).toEqual([]);
  });
});

import { createClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';
import { FILM_SQL } from './conformance/film-schema';
import { reloadSchema } from './fixtures';

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

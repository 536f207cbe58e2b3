import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server';
import { reloadSchema, userToken } from '../fixtures';
import { FILM_SQL } from './film-schema';

/**
 * One request and PostgREST's exact answer to it. `source` says where PostgREST gives that answer:
 * a page of its documentation (docs/references/…) or a module of its source (src/library/…), in
 * PostgREST/postgrest at the commit decision 051 names.
 */
export type ConformanceCase = {
  name: string;
  source: string;
  request: {
    method?: string;
    /** After /rest/v1/, query string included, percent-encoded where PostgREST's clients encode. */
    path: string;
    headers?: Record<string, string>;
    body?: unknown;
    /** Who asks: the anon key (the default), a signed-in user, or the service role. */
    as?: 'anon' | 'user' | 'service';
  };
  expect: {
    status: number;
    /** Headers that must be present with exactly this value, or absent where null. */
    headers?: Record<string, string | null>;
    /** The JSON body, compared deeply; for an error, PostgREST's {code, message, details, hint}. */
    json?: unknown;
    /** The body as text, for media types other than JSON. */
    text?: string;
  };
};

/**
 * Runs `cases` against one server started with `env` over the documentation's sample databases
 * (and `sql` after them). Each case is a fresh request; a case that writes should undo it itself
 * (Prefer: tx=rollback where allowed) or write rows no other case reads.
 */
export function conformance(title: string, cases: ConformanceCase[], options: { env?: Record<string, string>; sql?: string } = {}): void {
  describe(title, () => {
    let s: TestServer;
    beforeAll(async () => {
      s = await startTestServer({ RATE_LIMITS_ENABLED: 'false', ...options.env });
      await s.deps.db.exec(FILM_SQL + (options.sql ?? ''));
      await reloadSchema(s);
    });
    afterAll(() => s.stop());

    for (const c of cases) {
      it(`${c.name} (${c.source})`, async () => {
        const key = c.request.as === 'service' ? s.serviceRoleKey : s.anonKey;
        const bearer = c.request.as === 'user' ? await userToken(s, '00000000-0000-4000-8000-00000000c0de') : key;
        const body = c.request.body === undefined ? undefined : typeof c.request.body === 'string' ? c.request.body : JSON.stringify(c.request.body);
        const res = await fetch(`${s.url}/rest/v1/${c.request.path}`, {
          method: c.request.method ?? 'GET',
          headers: {
            apikey: key,
            Authorization: `Bearer ${bearer}`,
            ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
            ...c.request.headers,
          },
          body,
        });
        const text = await res.text();
        const got: Record<string, unknown> = { status: res.status };
        const want: Record<string, unknown> = { status: c.expect.status };
        for (const [name, value] of Object.entries(c.expect.headers ?? {})) {
          got[name] = res.headers.get(name);
          want[name] = value;
        }
        if (c.expect.json !== undefined) {
          got.body = text === '' ? undefined : (JSON.parse(text) as unknown);
          want.body = c.expect.json;
        }
        if (c.expect.text !== undefined) {
          got.body = text;
          want.body = c.expect.text;
        }
        expect(got).toEqual(want);
      });
    }
  });
}

import { conformance, type ConformanceCase } from './harness';

/**
 * PostgREST's full-text search, quantified (`any`/`all`) and range operators, over the tables the
 * documentation's examples name: `people` with `my_tsv`, `my_text_column` and `my_json_column`
 * (tables_views.rst, "Full-Text Search") and `last_name` ("Operator Modifiers"), `ranges` as in
 * PostgREST's own range tests, and `events` with a `tsrange` (how-tos/working-with-postgresql-data-types.rst).
 * The rows are the sentences of PostgREST's tsearch fixture, each vector made in its language.
 * The expected rows are what PostgreSQL answers to the SQL PostgREST builds (SqlFragment.hs,
 * pgFmtFilter); the parse errors are Parsec's, as pOpExpr gives them.
 */
const OPERATORS_SQL = `
create table public.people (
  id int primary key,
  first_name text,
  last_name text,
  my_tsv tsvector,
  my_text_column text,
  my_json_column json
);
insert into public.people (id, first_name, last_name, my_text_column) values
  (1, 'Ole', 'Olsen', 'It''s kind of fun to do the impossible'),
  (2, 'Pia', 'Peters', 'But also fun to do what is possible'),
  (3, 'Omar', 'Ortiz', 'Fat cats ate rats'),
  (4, 'Claire', 'Dupont', 'C''est un peu amusant de faire l''impossible'),
  (5, 'Jonas', 'Obermann', 'Es ist eine Art Spaß, das Unmögliche zu machen');
update public.people set
  my_tsv = to_tsvector((case id when 4 then 'french' when 5 then 'german' else 'english' end)::regconfig, my_text_column),
  my_json_column = json_build_object('text', my_text_column);

create table public.ranges (id int primary key, range numrange);
insert into public.ranges values (1, '[1,3]'), (2, '[3,6]'), (3, '[6,9]'), (4, '[9,12]'), (5, null);

create table public.events (id int primary key, name text unique, duration tsrange);
insert into public.events values
  (1, 'New Year''s Party', '[2022-12-31 11:00,2023-01-01 06:00]'),
  (2, 'Hangover Brunch', '(2023-01-01 06:00,2023-01-01 14:00)'),
  (3, 'Workshop', '[2023-01-09 09:00,2023-01-09 17:00)');

grant select on public.people, public.ranges, public.events to anon, authenticated;
`;

const FTS_DOCS = 'docs/references/api/tables_views.rst, Full-Text Search';
const TO_TSVECTOR_DOCS = 'docs/references/api/tables_views.rst, Automatic tsvector conversion';
const MODIFIERS_DOCS = 'docs/references/api/tables_views.rst, Operator Modifiers';
const OPERATORS_DOCS = 'docs/references/api/tables_views.rst, Operators';
const RANGES_HOWTO = 'docs/how-tos/working-with-postgresql-data-types.rst, Ranges';
const OP_GRAMMAR = 'src/library/PostgREST/ApiRequest/QueryParams.hs, pOpExpr';
const PG_ERROR = 'src/library/PostgREST/Error.hs, mapSQLtoHTTP';
/** This server's own bounds (query-limits.ts, README "Limits of the API"); PostgREST sets none, so the answer is in its PGRST100 shape. */
const OWN_LIMIT = 'NodeHarbor query-limits.ts, in the shape of QueryParams.hs QPError';

const ids = (...list: number[]) => list.map((id) => ({ id }));

function get(name: string, source: string, path: string, json: unknown, as?: 'user'): ConformanceCase {
  return { name, source, request: { path, ...(as && { as }) }, expect: { status: 200, json } };
}

function refused(name: string, source: string, path: string, json: unknown, as?: 'user'): ConformanceCase {
  return { name, source, request: { path, ...(as && { as }) }, expect: { status: 400, json } };
}

function parseError(value: string, column: number, details: string) {
  return { code: 'PGRST100', message: `"failed to parse filter (${value})" (line 1, column ${column})`, details, hint: null };
}

const fullTextSearch: ConformanceCase[] = [
  get('fts with a language', FTS_DOCS, 'people?select=id&my_tsv=fts(french).amusant', ids(4)),
  get('plfts without a language uses the default configuration', FTS_DOCS, 'people?select=id&my_tsv=plfts.The%20Fat%20Cats', ids(3)),
  get('not.phfts with a language', FTS_DOCS, 'people?select=id&order=id&my_tsv=not.phfts(english).The%20Fat%20Cats', ids(1, 2, 4, 5)),
  get('not.wfts with a language', FTS_DOCS, 'people?select=id&order=id&my_tsv=not.wfts(french).amusant', ids(1, 2, 3, 5)),
  get('fts keeps to_tsquery operators', 'src/library/PostgREST/Query/SqlFragment.hs, ftsOperator', 'people?select=id&my_tsv=fts.fun%26possible', ids(2)),
  get('a text column goes through to_tsvector', TO_TSVECTOR_DOCS, 'people?select=id&my_text_column=fts(french).amusant', ids(4)),
  // French stems "impossible" as impossibl, English as imposs: only to_tsvector('french', ...) matches.
  get('to_tsvector takes the language too', TO_TSVECTOR_DOCS, 'people?select=id&order=id&my_text_column=fts(french).impossible', ids(1, 4)),
  get(
    'a json column goes through to_tsvector',
    TO_TSVECTOR_DOCS,
    'people?select=id&order=id&my_json_column=not.phfts(english).The%20Fat%20Cats',
    ids(1, 2, 4, 5),
  ),
  get('to_tsvector without a language', TO_TSVECTOR_DOCS, 'people?select=id&order=id&my_text_column=fts.impossible', ids(1, 4)),
  get('wfts reads web search syntax', FTS_DOCS, 'people?select=id&my_text_column=wfts.fun%20and%20-possible', ids(1)),
  get(
    'languages inside a logic tree',
    'src/library/PostgREST/ApiRequest/QueryParams.hs, pLogicTree',
    'people?select=id&order=id&or=(my_tsv.phfts(german).Art%20Spass,my_tsv.fts(english).impossible)',
    ids(1, 5),
  ),
  refused('an unknown configuration is PostgreSQL’s error', PG_ERROR, 'people?select=id&my_tsv=fts(klingon).word', {
    code: '42704',
    message: 'text search configuration "klingon" does not exist',
    details: null,
    hint: null,
  }),
  refused(
    'a language that is no identifier',
    OP_GRAMMAR,
    'people?my_tsv=fts(pg_catalog.english).word',
    parseError('fts(pg_catalog.english).word', 15, 'unexpected "." expecting operator (eq, gt, ...)'),
  ),
  refused('an empty language', OP_GRAMMAR, 'people?my_tsv=fts().word', parseError('fts().word', 5, 'unexpected ")" expecting operator (eq, gt, ...)')),
  refused(
    'a query longer than 1,000 characters',
    OWN_LIMIT,
    `people?my_tsv=fts.${'a'.repeat(1001)}`,
    ownLimit(`fts.${'a'.repeat(1001)}`, 'full-text search queries may be at most 1000 characters'),
  ),
];

const quantified: ConformanceCase[] = [
  get('like(any) with stars', MODIFIERS_DOCS, 'people?select=last_name&order=id&last_name=like(any).{O*,P*}', [
    { last_name: 'Olsen' },
    { last_name: 'Peters' },
    { last_name: 'Ortiz' },
    { last_name: 'Obermann' },
  ]),
  get('like(all) with stars', MODIFIERS_DOCS, 'people?select=last_name&order=id&last_name=like(all).{O*,*n}', [
    { last_name: 'Olsen' },
    { last_name: 'Obermann' },
  ]),
  get('ilike(any)', MODIFIERS_DOCS, 'people?select=id&order=id&last_name=ilike(any).{o*,*Z}', ids(1, 3, 5)),
  get('ilike(all)', MODIFIERS_DOCS, 'people?select=id&order=id&last_name=ilike(all).{*e*,*r*}', ids(2, 5)),
  get('not.like(any)', MODIFIERS_DOCS, 'people?select=last_name&last_name=not.like(any).{O*,P*}', [{ last_name: 'Dupont' }]),
  get('eq(any)', MODIFIERS_DOCS, 'people?select=id&order=id&id=eq(any).{3,4,5}', ids(3, 4, 5)),
  get('not.eq(any)', MODIFIERS_DOCS, 'people?select=id&order=id&id=not.eq(any).{1,2}', ids(3, 4, 5)),
  get('gt(all)', MODIFIERS_DOCS, 'people?select=id&id=gt(all).{4,3}', ids(5)),
  get('gte(all)', MODIFIERS_DOCS, 'people?select=id&order=id&id=gte(all).{4,3}', ids(4, 5)),
  get('lt(any)', MODIFIERS_DOCS, 'people?select=id&order=id&id=lt(any).{2,4}', ids(1, 2, 3)),
  get('lt(all)', MODIFIERS_DOCS, 'people?select=id&order=id&id=lt(all).{4,3}', ids(1, 2)),
  get('lte(all)', MODIFIERS_DOCS, 'people?select=id&order=id&id=lte(all).{4,3}', ids(1, 2, 3)),
  get('match(any)', MODIFIERS_DOCS, 'people?select=id&order=id&last_name=match(any).{^O,z$}', ids(1, 3, 5), 'user'),
  get('imatch(all)', MODIFIERS_DOCS, 'people?select=id&order=id&last_name=imatch(all).{^o,N$}', ids(1, 5), 'user'),
  get(
    'like(any) inside a logic tree',
    'src/library/PostgREST/ApiRequest/QueryParams.hs, pLogicSingleVal',
    'people?select=id&order=id&or=(last_name.like(any).{P*,D*},id.eq.1)',
    ids(1, 2, 4),
  ),
  refused('a value that is no array is PostgreSQL’s error', PG_ERROR, 'people?id=eq(any).5', {
    code: '22P02',
    message: 'malformed array literal: "5"',
    details: 'Array value must start with "{" or dimension information.',
    hint: null,
  }),
  refused(
    'an unknown quantifier',
    OP_GRAMMAR,
    'people?last_name=like(some).{a}',
    parseError('like(some).{a}', 6, 'unexpected "s" expecting operator (eq, gt, ...)'),
  ),
  refused('neq takes no quantifier', OP_GRAMMAR, 'people?id=neq(any).{1}', parseError('neq(any).{1}', 4, 'unexpected "(" expecting operator (eq, gt, ...)')),
  refused(
    'anon may not use match(any)',
    OWN_LIMIT,
    'people?last_name=match(any).{^O}',
    ownLimit('match(any).{^O}', 'regular expression filters (match, imatch) need a signed-in user; use like or ilike'),
  ),
  refused(
    'each regular expression passes the checks of match',
    OWN_LIMIT,
    'people?last_name=imatch(any).{^O,(.%2B)%5C%5C1}',
    ownLimit('imatch(any).{^O,(.+)\\\\1}', 'backreferences are not allowed in regular expressions'),
    'user',
  ),
  refused(
    'a like pattern of the list longer than 1,000 characters',
    OWN_LIMIT,
    `people?last_name=like(any).{O*,${'a'.repeat(1001)}}`,
    ownLimit(`like(any).{O%,${'a'.repeat(1001)}}`, 'like patterns may be at most 1000 characters'),
  ),
  refused(
    'a list of more than 1,000 values',
    OWN_LIMIT,
    `people?last_name=like(all).{${Array(1001).fill('a').join(',')}}`,
    ownLimit(`like(all).{${Array(1001).fill('a').join(',')}}`, 'like(any) and like(all) lists may hold at most 1000 values'),
  ),
];

/** This server's refusal of a filter over its limits: the filter's first 40 characters of value. */
function ownLimit(filter: string, details: string) {
  const dot = filter.indexOf('.');
  return { code: 'PGRST100', message: `"failed to parse filter (${filter.slice(0, dot + 1 + 40)})"`, details, hint: null };
}

const ranges: ConformanceCase[] = [
  get('sl: strictly left of', OPERATORS_DOCS, 'ranges?select=id&order=id&range=sl.[9,10]', ids(1, 2)),
  get('sr: strictly right of', OPERATORS_DOCS, 'ranges?select=id&order=id&range=sr.[3,4]', ids(3, 4)),
  get('nxr: does not extend to the right of', OPERATORS_DOCS, 'ranges?select=id&order=id&range=nxr.[4,7]', ids(1, 2)),
  get('nxl: does not extend to the left of', OPERATORS_DOCS, 'ranges?select=id&order=id&range=nxl.[4,7]', ids(3, 4)),
  get('adj: is adjacent to', OPERATORS_DOCS, 'ranges?select=id&range=adj.(3,10]', ids(1)),
  get('not.adj', OPERATORS_DOCS, 'ranges?select=id&order=id&range=not.adj.(3,10]', ids(2, 3, 4)),
  get(
    'adj and cs in a logic tree, quoted',
    'docs/references/api/tables_views.rst, Logical operators',
    'ranges?select=id&order=id&or=(range.adj."(12,13)",range.cs."[2,2]")',
    ids(1, 4),
  ),
  get('isdistinct stays', OPERATORS_DOCS, 'ranges?select=id&order=id&range=isdistinct.[1,3]', ids(2, 3, 4, 5)),
  get('adj on a tsrange', RANGES_HOWTO, 'events?select=id&duration=adj.(2023-01-01%2006:00,2023-01-01%2014:00)', ids(1)),
  get('sl on a tsrange', RANGES_HOWTO, 'events?select=id&order=id&duration=sl.[2023-01-02,2023-01-03)', ids(1, 2)),
  get('sr on a tsrange', RANGES_HOWTO, 'events?select=id&order=id&duration=sr.[2022-12-31,2023-01-01)', ids(2, 3)),
  get('nxr on a tsrange', RANGES_HOWTO, 'events?select=id&order=id&duration=nxr.[2023-01-01,2023-01-02)', ids(1, 2)),
  get('nxl on a tsrange', RANGES_HOWTO, 'events?select=id&order=id&duration=nxl.[2023-01-01,2023-01-02)', ids(2, 3)),
];

const grammar: ConformanceCase[] = [
  refused('an unknown operator', OP_GRAMMAR, 'people?id=between.1', parseError('between.1', 1, 'unexpected "b" expecting "not" or operator (eq, gt, ...)')),
  refused(
    'an unknown operator after not',
    OP_GRAMMAR,
    'people?id=not.between.1',
    parseError('not.between.1', 5, 'unexpected "b" expecting operator (eq, gt, ...)'),
  ),
  refused(
    'a range operator takes no quantifier',
    OP_GRAMMAR,
    'ranges?range=sl(any).[1,2]',
    parseError('sl(any).[1,2]', 3, 'unexpected "(" expecting operator (eq, gt, ...)'),
  ),
  refused(
    'no delimiter after the quantifier',
    OP_GRAMMAR,
    'people?last_name=ilike(any){a}',
    parseError('ilike(any){a}', 11, 'unexpected "{" expecting operator (eq, gt, ...)'),
  ),
  refused('a value with no operator', OP_GRAMMAR, 'people?id=0', parseError('0', 1, 'unexpected "0" expecting "not" or operator (eq, gt, ...)')),
];

conformance('PostgREST operators: full-text search', fullTextSearch, { sql: OPERATORS_SQL });
conformance('PostgREST operators: any and all', quantified, { sql: OPERATORS_SQL });
conformance('PostgREST operators: ranges', ranges, { sql: OPERATORS_SQL });
conformance('PostgREST operators: the grammar', grammar, { sql: OPERATORS_SQL });

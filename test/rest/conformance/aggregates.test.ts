import { conformance, type ConformanceCase } from './harness';

const AGG = 'docs/references/api/aggregate_functions.rst';

const enabled: ConformanceCase[] = [
  {
    name: 'an aggregate of every row',
    source: AGG,
    request: { path: 'films?select=rating.sum()' },
    expect: { status: 200, json: [{ sum: 19.6 }] },
  },
  {
    name: 'several aggregates, renamed',
    source: AGG,
    request: { path: 'films?select=total:rating.sum(),best:rating.max(),worst:rating.min(),n:count()' },
    expect: { status: 200, json: [{ total: 19.6, best: 7.1, worst: 6.2, n: 3 }] },
  },
  {
    name: 'the other selected columns group the rows',
    source: `${AGG} "Automatic GROUP BY"`,
    request: { path: 'films?select=language,count(),year.min()&order=language' },
    expect: {
      status: 200,
      json: [
        { language: 'english', count: 1, min: 1894 },
        { language: 'silent', count: 2, min: 1895 },
      ],
    },
  },
  {
    name: 'a cast of the aggregate',
    source: `${AGG} "Casting the Aggregate"`,
    request: { path: 'films?select=rating.avg()::int' },
    expect: { status: 200, json: [{ avg: 7 }] },
  },
  {
    name: 'a cast of the aggregated column',
    source: `${AGG} "Casting the Aggregated Column"`,
    request: { path: 'films?select=rating::int.sum()' },
    expect: { status: 200, json: [{ sum: 19 }] },
  },
  {
    name: 'filters apply before the aggregate',
    source: AGG,
    request: { path: 'films?select=count()&language=eq.silent' },
    expect: { status: 200, json: [{ count: 2 }] },
  },
  {
    name: 'grouped by a to-one embedded resource',
    source: `${AGG} "Grouping by an Embedded Resource"`,
    request: { path: 'films?select=count(),directors(last_name)&id=eq.1' },
    expect: { status: 200, json: [{ count: 1, directors: { last_name: 'Lumière' } }] },
  },
  {
    name: 'aggregates inside an embedded resource group its rows',
    source: `${AGG} "Using Aggregates Inside Embedded Resources"`,
    request: { path: 'directors?select=last_name,films(rating.sum(),language)&order=id' },
    expect: {
      status: 200,
      json: [
        { last_name: 'Dickson', films: [{ sum: 6.3, language: 'english' }] },
        { last_name: 'Lumière', films: [{ sum: 7.1, language: 'silent' }] },
        { last_name: 'Méliès', films: [{ sum: 6.2, language: 'silent' }] },
      ],
    },
  },
  {
    name: 'count() of an embedded resource',
    source: `${AGG} "The count() Aggregate"`,
    request: { path: 'actors?select=last_name,films(count())&order=id&limit=2' },
    expect: {
      status: 200,
      json: [
        { last_name: 'Dafoe', films: [{ count: 1 }] },
        { last_name: "d'Alcy", films: [{ count: 1 }] },
      ],
    },
  },
  {
    name: 'aggregates in a spread are not supported: 400 PGRST127',
    source: 'src/library/PostgREST/Error.hs NotImplemented',
    request: { path: 'films?select=title,...directors(id.max())' },
    expect: {
      status: 400,
      json: {
        code: 'PGRST127',
        details: 'aggregates inside spread embedded resources are not supported by this server',
        hint: null,
        message: 'Feature not implemented',
      },
    },
  },
];

const disabled: ConformanceCase[] = [
  {
    name: 'aggregates are off by default: 400 PGRST123',
    source: 'src/library/PostgREST/Error.hs AggregatesNotAllowed',
    request: { path: 'films?select=rating.sum()' },
    expect: { status: 400, json: { code: 'PGRST123', details: null, hint: null, message: 'Use of aggregate functions is not allowed' } },
  },
  {
    name: 'count() is an aggregate too',
    source: 'src/library/PostgREST/Error.hs AggregatesNotAllowed',
    request: { path: 'directors?select=films(count())' },
    expect: { status: 400, json: { code: 'PGRST123', details: null, hint: null, message: 'Use of aggregate functions is not allowed' } },
  },
  {
    name: 'the legacy count, without parentheses, counts an embedded resource all the same',
    source: `${AGG} "The count() Aggregate" (note on count without parentheses)`,
    request: { path: 'directors?select=last_name,films(count)&order=id&limit=1' },
    expect: { status: 200, json: [{ last_name: 'Dickson', films: [{ count: 1 }] }] },
  },
  {
    name: 'and the rows of a table',
    source: `${AGG} "The count() Aggregate" (note on count without parentheses)`,
    request: { path: 'films?select=count' },
    expect: { status: 200, json: [{ count: 3 }] },
  },
];

conformance('Aggregates with REST_AGGREGATES=on', enabled, { env: { REST_AGGREGATES: 'on' } });
conformance('Aggregates off (the default)', disabled);

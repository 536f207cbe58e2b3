import { exceedsJsonDepth } from '../http/json-body';
import { invalidBody, parseError, undefinedColumn, writeColumnNotFound, RestError } from './errors';
import { conditionColumns, isLogicTree, type Condition, type Filter, type OrderTerm, type ParsedQuery, type SelectItem } from './parse-query';
import type { FtsOp, QuantOp } from './parse-query';
import type { ResponseShape } from './request-headers';
import type { Column, Relation, Routine } from './schema-cache';

/** A statement and its parameters. Every parameter is text (or null), cast in SQL to the type it needs. */
export type Statement = { sql: string; params: (string | null)[] };

/** The columns every statement returns: the JSON body is built by PostgreSQL, as PostgREST does. */
export type ResultRow = { total: number | null; page_total: number; body: string | null };

/** Quotes an identifier taken from the catalogue (or checked against it). */
export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Quotes a string taken from the catalogue as a literal (standard_conforming_strings is on). */
function literal(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

class Params {
  readonly values: (string | null)[] = [];
  /** A placeholder for `value`, typed text so that both drivers send it untouched. */
  add(value: string | null): string {
    this.values.push(value);
    return `$${this.values.length}::text`;
  }
}

/** A relation or function result whose columns a query may name. */
type Source = { name: string; columns: ReadonlyMap<string, Column> | null };

function column(src: Source, name: string): Column {
  const c = src.columns?.get(name);
  if (!c) throw undefinedColumn(src.name, name);
  return c;
}

function selectList(src: Source, items: readonly SelectItem[]): string {
  const q = ident(src.name);
  return items
    .map((it) => {
      if (it.kind === 'star') return `${q}.*`;
      const c = column(src, it.column);
      const ref = `${q}.${ident(c.name)}`;
      if (!it.alias && !it.cast) return ref;
      return `${ref}${it.cast ? `::${it.cast}` : ''} as ${ident(it.alias ?? c.name)}`;
    })
    .join(', ');
}

/** A PostgreSQL array literal whose every element is quoted, so no value can read as NULL or break out. */
function arrayLiteral(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replace(/[\\"]/g, '\\$&')}"`).join(',')}}`;
}

/** PostgreSQL's MAXDIM: it refuses a deeper array as a program limit (54000, a 500), so it is refused here as bad input. */
const MAX_ARRAY_DIMENSIONS = 6;

/** Whether a value for an array-typed column or argument nests arrays deeper than PostgreSQL takes. */
function tooManyDimensions(type: string, value: unknown): boolean {
  if (!type.endsWith('[]')) return false;
  // A string is an array literal, `{{a},{b}}`; anything else came as JSON.
  if (typeof value === 'string') return exceedsJsonDepth(value, MAX_ARRAY_DIMENSIONS);
  // Bodies nest at most MAX_JSON_DEPTH levels, so this walk is bounded; a stack keeps it iterative.
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (!Array.isArray(v)) continue;
    if (depth + 1 > MAX_ARRAY_DIMENSIONS) return true;
    for (const x of v as unknown[]) stack.push([x, depth + 1]);
  }
  return false;
}

function checkDimensions(name: string, type: string, value: unknown): void {
  if (tooManyDimensions(type, value)) throw invalidBody(`'${name}' nests arrays more than ${MAX_ARRAY_DIMENSIONS} deep, the most PostgreSQL takes`);
}

const COMPARISON: Record<string, string> = {
  eq: '=',
  neq: '<>',
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<=',
  cs: '@>',
  cd: '<@',
  ov: '&&',
  sl: '<<',
  sr: '>>',
  nxr: '&<',
  nxl: '&>',
  adj: '-|-',
};
const PATTERN: Record<string, string> = { like: 'like', ilike: 'ilike', match: '~', imatch: '~*' };
const IS_SQL: Record<string, string> = { null: 'is null', not_null: 'is not null', true: 'is true', false: 'is false', unknown: 'is unknown' };
const TSQUERY: Record<FtsOp, string> = { fts: 'to_tsquery', plfts: 'plainto_tsquery', phfts: 'phraseto_tsquery', wfts: 'websearch_to_tsquery' };

type FtsFilter = Extract<Filter, { op: FtsOp }>;
type QuantifiedFilter = Required<Extract<Filter, { op: QuantOp }>>;

function isFts(f: Filter): f is FtsFilter {
  return f.op in TSQUERY;
}

function isQuantified(f: Filter): f is QuantifiedFilter {
  return 'quantifier' in f && f.quantifier !== undefined;
}

/**
 * `col @@ to_tsquery([config,] value)`; as in PostgREST 13, a column that is not a tsvector goes
 * through to_tsvector in the same configuration, which is a parameter read by regconfig's input.
 */
function fullTextSearch(ref: string, c: Column, f: FtsFilter, p: Params): string {
  const config = f.language === undefined ? '' : `${p.add(f.language)}::regconfig, `;
  const vector = c.type === 'tsvector' ? ref : `to_tsvector(${config}${ref})`;
  return `${vector} @@ ${TSQUERY[f.op]}(${config}${p.add(f.value)})`;
}

/** `col op any(array)`: the value is an array literal of the column's type, or of text for patterns. */
function quantifiedCondition(ref: string, c: Column, f: QuantifiedFilter, p: Params): string {
  const pattern = PATTERN[f.op];
  const value = `${p.add(f.value)}::${pattern ? 'text' : c.type}[]`;
  return `${ref} ${pattern ?? COMPARISON[f.op]} ${f.quantifier}(${value})`;
}

function condition(src: Source, f: Filter, p: Params): string {
  const c = column(src, f.column);
  const ref = `${ident(src.name)}.${ident(c.name)}`;
  if (f.op !== 'in' && f.op !== 'is' && tooManyDimensions(isQuantified(f) ? `${c.type}[]` : c.type, f.value)) {
    throw parseError(`"failed to parse filter (${f.op}.${f.value.slice(0, 40)})"`, `arrays may nest at most ${MAX_ARRAY_DIMENSIONS} levels`);
  }
  let sql: string;
  if (f.op === 'is') sql = `${ref} ${IS_SQL[f.value]}`;
  else if (f.op === 'in') sql = `${ref} = any(${p.add(arrayLiteral(f.value))}::${c.type}[])`;
  else if (f.op === 'isdistinct') sql = `${ref} is distinct from ${p.add(f.value)}::${c.type}`;
  else if (isFts(f)) sql = fullTextSearch(ref, c, f, p);
  else if (isQuantified(f)) sql = quantifiedCondition(ref, c, f, p);
  else if (f.op in PATTERN) sql = `${ref} ${PATTERN[f.op]} ${p.add(f.value)}`;
  else sql = `${ref} ${COMPARISON[f.op]} ${p.add(f.value)}::${c.type}`;
  return f.negate ? `not (${sql})` : sql;
}

function tree(src: Source, c: Condition, p: Params): string {
  if (!isLogicTree(c)) return condition(src, c, p);
  const sql = `(${c.children.map((child) => tree(src, child, p)).join(` ${c.op} `)})`;
  return c.negate ? `not ${sql}` : sql;
}

function where(src: Source, filters: readonly Condition[], p: Params): string {
  return filters.length ? ` where ${filters.map((f) => tree(src, f, p)).join(' and ')}` : '';
}

function orderBy(src: Source, terms: readonly OrderTerm[]): string {
  if (!terms.length) return '';
  const q = ident(src.name);
  const parts = terms.map((t) => {
    const c = column(src, t.column);
    return `${q}.${ident(c.name)}${t.dir ? ` ${t.dir}` : ''}${t.nulls ? ` nulls ${t.nulls}` : ''}`;
  });
  return ` order by ${parts.join(', ')}`;
}

function range(q: ParsedQuery, p: Params): string {
  return (
    (q.limit !== undefined ? ` limit ${p.add(String(q.limit))}::bigint` : '') + (q.offset !== undefined ? ` offset ${p.add(String(q.offset))}::bigint` : '')
  );
}

function bodyOf(shape: ResponseShape | 'none'): string {
  if (shape === 'none') return 'null::text';
  return shape === 'object' ? `coalesce((json_agg(_pgrst_t)->0)::text, 'null')` : `coalesce(json_agg(_pgrst_t), '[]')::text`;
}

function table(rel: Relation): string {
  return `"public".${ident(rel.name)}`;
}

/** GET/HEAD on a table or view: one statement returning the page, its size and (when asked) the total. */
export function buildRead(rel: Relation, q: ParsedQuery, shape: ResponseShape, count: boolean): Statement {
  const p = new Params();
  const w = where(rel, q.filters, p);
  const total = count ? `(select count(*) from ${table(rel)}${w})` : 'null::bigint';
  const sql =
    `select ${total} as total, count(*) as page_total, ${bodyOf(shape)} as body ` +
    `from (select ${selectList(rel, q.select)} from ${table(rel)}${w}${orderBy(rel, q.order)}${range(q, p)}) _pgrst_t`;
  return { sql, params: p.values };
}

/** Wraps a data-modifying statement: the response is built over what it returned. */
function overModified(rel: Relation, modify: string, q: ParsedQuery, shape: ResponseShape | 'none', p: Params): Statement {
  const inner =
    shape === 'none' ? `select 1 from pgrst_source` : `select ${selectList(rel, q.select)} from pgrst_source as ${ident(rel.name)}${orderBy(rel, q.order)}`;
  return {
    sql: `with pgrst_source as (${modify}) select null::bigint as total, count(*) as page_total, ${bodyOf(shape)} as body from (${inner}) _pgrst_t`,
    params: p.values,
  };
}

/** `returning 1` when no representation is asked for, so that RLS SELECT policies do not apply (as PostgREST). */
function returning(rel: Relation, shape: ResponseShape | 'none'): string {
  return shape === 'none' ? ' returning 1' : ` returning ${ident(rel.name)}.*`;
}

function payloadColumns(rel: Relation, keys: readonly string[]): Column[] {
  return keys.map((k) => {
    const c = rel.columns.get(k);
    if (!c) throw writeColumnNotFound(rel.name, k);
    return c;
  });
}

function recordDefinition(cols: readonly Column[]): string {
  return cols.map((c) => `${ident(c.name)} ${c.type}`).join(', ');
}

function rejectRange(q: ParsedQuery, verb: string): void {
  if (q.limit !== undefined || q.offset !== undefined) {
    throw parseError(`limit and offset are not supported on ${verb} by this server`);
  }
}

export type InsertOptions = {
  rows: Record<string, unknown>[];
  keys: string[];
  missingDefault: boolean;
  resolution: 'merge-duplicates' | 'ignore-duplicates' | undefined;
};

/** POST on a table: the rows travel as one JSON parameter and are typed by jsonb_to_record. */
export function buildInsert(rel: Relation, q: ParsedQuery, o: InsertOptions, shape: ResponseShape | 'none'): Statement {
  rejectRange(q, 'INSERT');
  const cols = payloadColumns(rel, o.keys);
  for (const c of cols) for (const row of o.rows) checkDimensions(c.name, c.type, row[c.name]);
  const p = new Params();
  const rows = p.add(JSON.stringify(o.rows));
  let modify: string;
  if (cols.length === 0) {
    modify = `insert into ${table(rel)} select from jsonb_array_elements(${rows}::jsonb)`;
  } else {
    const values = cols.map((c) =>
      o.missingDefault && c.default !== null
        ? `case when _pgrst_e.j ? ${literal(c.name)} then _pgrst_b.${ident(c.name)} else ${c.default} end`
        : `_pgrst_b.${ident(c.name)}`,
    );
    modify =
      `insert into ${table(rel)} (${cols.map((c) => ident(c.name)).join(', ')}) ` +
      `select ${values.join(', ')} from jsonb_array_elements(${rows}::jsonb) as _pgrst_e(j) ` +
      `cross join lateral jsonb_to_record(_pgrst_e.j) as _pgrst_b(${recordDefinition(cols)})`;
  }
  if (o.resolution) modify += onConflict(rel, q, cols, o.resolution);
  return overModified(rel, modify + returning(rel, shape), q, shape, p);
}

function onConflict(rel: Relation, q: ParsedQuery, cols: readonly Column[], resolution: 'merge-duplicates' | 'ignore-duplicates'): string {
  const target = q.onConflict ?? rel.primaryKey;
  if (target.length === 0) {
    throw new RestError(
      400,
      'PGRST100',
      `"failed to parse on_conflict parameter"`,
      `Table '${rel.name}' has no primary key; name the conflict columns with on_conflict`,
    );
  }
  const targetSql = target.map((t) => ident(column(rel, t).name)).join(', ');
  if (resolution === 'ignore-duplicates' || cols.length === 0) return ` on conflict (${targetSql}) do nothing`;
  return ` on conflict (${targetSql}) do update set ${cols.map((c) => `${ident(c.name)} = excluded.${ident(c.name)}`).join(', ')}`;
}

/** PATCH on a table: the new values travel as one JSON parameter. */
export function buildUpdate(rel: Relation, q: ParsedQuery, values: Record<string, unknown>, shape: ResponseShape | 'none'): Statement {
  rejectRange(q, 'UPDATE');
  const cols = payloadColumns(rel, Object.keys(values));
  for (const c of cols) checkDimensions(c.name, c.type, values[c.name]);
  const p = new Params();
  if (cols.length === 0) {
    // PostgREST turns an empty PATCH into a no-op; the filters are still checked.
    where(rel, q.filters, new Params());
    return overModified(rel, `select ${ident(rel.name)}.* from ${table(rel)} where false`, q, shape, p);
  }
  const body = p.add(JSON.stringify(values));
  const set = cols.map((c) => `${ident(c.name)} = _pgrst_b.${ident(c.name)}`).join(', ');
  const modify =
    `update ${table(rel)} set ${set} from jsonb_to_record(${body}::jsonb) as _pgrst_b(${recordDefinition(cols)})` +
    where(rel, q.filters, p) +
    returning(rel, shape);
  return overModified(rel, modify, q, shape, p);
}

/** DELETE on a table. */
export function buildDelete(rel: Relation, q: ParsedQuery, shape: ResponseShape | 'none'): Statement {
  rejectRange(q, 'DELETE');
  const p = new Params();
  const modify = `delete from ${table(rel)}${where(rel, q.filters, p)}${returning(rel, shape)}`;
  return overModified(rel, modify, q, shape, p);
}

/**
 * A function call with named arguments (`"a" := ...`) typed by jsonb_to_record, shaped as
 * PostgREST shapes it: a bare value, an array of values, an object, or an array of objects.
 */
export function buildRpc(fn: Routine, args: Record<string, unknown>, q: ParsedQuery, shape: ResponseShape, count: boolean): Statement {
  const p = new Params();
  const given = fn.args.filter((a) => a.name in args);
  for (const a of given) checkDimensions(a.name, a.type, args[a.name]);
  const call = `"public".${ident(fn.name)}(${given.map((a) => `${ident(a.name)} := _pgrst_args.${ident(a.name)}`).join(', ')})`;
  const argsFrom = given.length
    ? `jsonb_to_record(${p.add(JSON.stringify(args))}::jsonb) as _pgrst_args(${given.map((a) => `${ident(a.name)} ${a.type}`).join(', ')})`
    : '';
  const src: Source = { name: fn.name, columns: fn.columns };
  const from = (relation: string) => (argsFrom ? `${argsFrom} cross join lateral ${relation}` : relation);

  if (fn.returns === 'composite') {
    const filtered = `from ${from(`${call} as ${ident(fn.name)}`)}${where(src, q.filters, p)}`;
    const total = count && fn.volatility !== 'v' ? `(select count(*) ${filtered})` : 'null::bigint';
    const inner = `select ${selectList(src, q.select)} ${filtered}${orderBy(src, q.order)}${range(q, p)}`;
    const body = fn.setof ? bodyOf(shape) : bodyOf('object');
    return { sql: `select ${total} as total, count(*) as page_total, ${body} as body from (${inner}) _pgrst_t`, params: p.values };
  }
  // Scalar and void results have no columns to select, filter or order by.
  for (const f of q.filters) for (const name of conditionColumns(f)) column(src, name);
  for (const t of q.order) column(src, t.column);
  for (const s of q.select) if (s.kind === 'column') column(src, s.column);

  if (fn.returns === 'void') {
    // The result is referenced so that the planner cannot drop the call of a non-volatile function.
    const inner = `select ${call} as pgrst_scalar${argsFrom ? ` from ${argsFrom}` : ''}`;
    return {
      sql: `select null::bigint as total, count(_pgrst_t.pgrst_scalar::text) as page_total, null::text as body from (${inner}) _pgrst_t`,
      params: p.values,
    };
  }
  if (fn.setof) {
    const inner = `select _pgrst_f.pgrst_scalar from ${from(`${call} as _pgrst_f(pgrst_scalar)`)}${range(q, p)}`;
    const body = shape === 'object' ? `coalesce((json_agg(_pgrst_t.pgrst_scalar)->0)::text, 'null')` : `coalesce(json_agg(_pgrst_t.pgrst_scalar), '[]')::text`;
    return { sql: `select null::bigint as total, count(*) as page_total, ${body} as body from (${inner}) _pgrst_t`, params: p.values };
  }
  const inner = `select ${call} as pgrst_scalar${argsFrom ? ` from ${argsFrom}` : ''}`;
  return {
    sql: `select null::bigint as total, count(*) as page_total, coalesce((json_agg(_pgrst_t.pgrst_scalar)->0)::text, 'null') as body from (${inner}) _pgrst_t`,
    params: p.values,
  };
}

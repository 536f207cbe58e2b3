import { exceedsJsonDepth } from '../http/json-body';
import { invalidBody, parseError, writeColumnNotFound, RestError } from './errors';
import { isLogicTree, type Condition, type Filter, type FtsOp, type JsonStep, type OrderTerm, type ParsedQuery, type QuantOp } from './parse-query';
import { column, type EmbedPlan, type PlainItem, type ReadPlan, type Source } from './plan';
import type { ResponseShape } from './request-headers';
import type { Column, Relation, Routine } from './schema-cache';

/** A statement and its parameters. Every parameter is text (or null), cast in SQL to the type it needs. */
export type Statement = { sql: string; params: (string | null)[] };

/**
 * The columns every statement returns: the body is built by PostgreSQL, as PostgREST does. Writes
 * also say how many rows an upsert inserted rather than updated (null for anything else).
 */
export type ResultRow = { total: number | null; page_total: number; body: string | null; inserted?: number | null };

/** Quotes an identifier taken from the catalogue (or checked against it). */
export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Quotes a string taken from the catalogue as a literal (standard_conforming_strings is on). */
function literal(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

/** A JSON key from the query string as an escape-string literal, read the same whatever standard_conforming_strings says. */
function jsonKey(s: string): string {
  return `E'${s.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

class Params {
  readonly values: (string | null)[] = [];
  /** A placeholder for `value`, typed text so that both drivers send it untouched. */
  add(value: string | null): string {
    this.values.push(value);
    return `$${this.values.length}::text`;
  }
}

/** PostgREST's default name for a JSON path: its last key (Plan.hs lastJsonKey), or the column's. */
function jsonAlias(name: string, json: readonly JsonStep[]): string {
  return [...json].reverse().find((step) => !step.index)?.key ?? name;
}

/** A column with its JSON path as SQL, and the type a value compared with it takes. Keys are literals, as PostgREST sends them. */
function field(src: Source, name: string, json: readonly JsonStep[] | undefined): { sql: string; type: string } {
  const c = column(src, name);
  let sql = `${ident(src.name)}.${ident(c.name)}`;
  if (!json) return { sql, type: c.type };
  // An array or composite column is read through to_jsonb, as PostgREST does (its cfToJson).
  const isJson = c.type === 'json' || c.type === 'jsonb';
  if (!isJson) sql = `to_jsonb(${sql})`;
  for (const step of json) sql += `${step.arrow}${step.index ? `${Number(step.key)}` : jsonKey(step.key)}`;
  return { sql: `(${sql})`, type: json[json.length - 1]!.arrow === '->>' ? 'text' : isJson ? c.type : 'jsonb' };
}

/** A select item as SQL before its `as`, and the name it answers under when that is not PostgreSQL's own. */
function selectItem(src: Source, it: PlainItem): { sql: string; name: string | undefined; aggregate: boolean } {
  if (it.kind === 'star') return { sql: `${ident(src.name)}.*`, name: undefined, aggregate: false };
  if (it.kind === 'count') return { sql: `count(*)${it.cast ? `::${it.cast}` : ''}`, name: it.alias ?? 'count', aggregate: true };
  const f = field(src, it.column, it.json);
  let sql = it.cast ? `${f.sql}::${it.cast}` : f.sql;
  if (it.aggregate) {
    sql = `${it.aggregate.fn}(${sql})${it.aggregate.cast ? `::${it.aggregate.cast}` : ''}`;
    return { sql, name: it.alias ?? it.aggregate.fn, aggregate: true };
  }
  const name = it.alias ?? (it.json ? jsonAlias(it.column, it.json) : it.cast ? it.column : undefined);
  return { sql, name, aggregate: false };
}

/** The names a level answers with, in order: what a spread embed puts into its parent. */
function outputNames(plan: ReadPlan): string[] {
  const names = plan.select.flatMap((it) => {
    if (it.kind === 'star') return [...(plan.source.columns?.keys() ?? [])];
    const item = selectItem(plan.source, it);
    return [item.name ?? (it.kind === 'column' ? it.column : 'count')];
  });
  return [...names, ...plan.embeds.flatMap((e) => (e.empty ? [] : e.spread ? outputNames(e.plan) : [e.key]))];
}

/** How the embedded level's rows meet its parent's: PostgREST's join conditions, through the junction for many-to-many. */
function joinConditions(e: EmbedPlan, parent: string): string[] {
  const child = ident(e.plan.source.name);
  const r = e.relationship;
  if (r.cardinality !== 'm2m') return r.columns.map(([pc, cc]) => `${child}.${ident(cc)} = ${ident(parent)}.${ident(pc)}`);
  const j = ident(`${e.plan.source.name}_junction`);
  return [
    ...r.junction.source.map(([pc, jc]) => `${j}.${ident(jc)} = ${ident(parent)}.${ident(pc)}`),
    ...r.junction.target.map(([cc, jc]) => `${j}.${ident(jc)} = ${child}.${ident(cc)}`),
  ];
}

function embedFrom(e: EmbedPlan): string {
  const from = `"public".${ident(e.table)} as ${ident(e.plan.source.name)}`;
  const r = e.relationship;
  return r.cardinality === 'm2m' ? `${from}, "public".${ident(r.junction.table)} as ${ident(`${e.plan.source.name}_junction`)}` : from;
}

/** `exists (…)` for each embed that must (or must not) have rows: `!inner` in a count, and `actors=not.is.null`. */
function existsConditions(plan: ReadPlan, p: Params, forCount: boolean): string[] {
  return plan.embeds.flatMap((e) => {
    const must = e.exists ?? (forCount && e.inner ? true : undefined);
    if (must === undefined) return [];
    const conds = [...joinConditions(e, plan.source.name), ...e.plan.filters.map((f) => tree(e.plan.source, f, p)), ...existsConditions(e.plan, p, true)];
    return [`${must ? '' : 'not '}exists (select 1 from ${embedFrom(e)} where ${conds.join(' and ')})`];
  });
}

/** One embed as a lateral join, and what its parent selects from it (PostgREST's getJoin and getJoinSelects). */
function embedJoin(e: EmbedPlan, parent: string, p: Params): { join: string; outputs: { sql: string; name: string }[] } {
  const sub = levelSql(e.plan, embedFrom(e), p, joinConditions(e, parent));
  const j = ident(e.joinAlias);
  const kind = e.inner ? 'inner' : 'left';
  if (e.toOne) {
    const outputs = e.empty
      ? []
      : e.spread
        ? outputNames(e.plan).map((n) => ({ sql: `${j}.${ident(n)}`, name: n }))
        : [{ sql: `row_to_json(${j}.*)::jsonb`, name: e.key }];
    return { join: ` ${kind} join lateral (${sub}) as ${j} on true`, outputs };
  }
  const spreads = e.spread ? outputNames(e.plan).map((n) => `coalesce(json_agg(${j}.${ident(n)}), '[]')::jsonb as ${ident(n)}`) : [];
  const join = ` ${kind} join lateral (select ${[`json_agg(${j})::jsonb as ${j}`, ...spreads].join(', ')} from (${sub}) as ${j}) as ${j} on ${e.inner ? `${j}.${j} is not null` : 'true'}`;
  if (e.empty) return { join, outputs: [] };
  if (e.spread) return { join, outputs: outputNames(e.plan).map((n) => ({ sql: `${j}.${ident(n)}`, name: n })) };
  return { join, outputs: [{ sql: `coalesce(${j}.${j}, '[]')`, name: e.key }] };
}

/** A level of a read as one SELECT over `from`, its embeds joined laterally (PostgREST's readPlanToQuery). */
function levelSql(plan: ReadPlan, from: string, p: Params, joinConds: readonly string[] = []): string {
  const src = plan.source;
  const items = plan.select.flatMap((it) =>
    it.kind === 'star' && plan.grouped
      ? [...(src.columns?.keys() ?? [])].map((name) => selectItem(src, { kind: 'column', column: name, alias: undefined, cast: undefined }))
      : [selectItem(src, it)],
  );
  const embeds = plan.embeds.map((e) => embedJoin(e, src.name, p));
  const outputs = embeds.flatMap((e) => e.outputs);
  const list = [...items.map((i) => (i.name ? `${i.sql} as ${ident(i.name)}` : i.sql)), ...outputs.map((o) => `${o.sql} as ${ident(o.name)}`)];
  const conds = [...joinConds, ...plan.filters.map((f) => tree(src, f, p)), ...existsConditions(plan, p, false)];
  const groups = plan.grouped ? [...items.filter((i) => !i.aggregate).map((i) => i.sql), ...outputs.map((o) => o.sql)] : [];
  return (
    `select ${list.join(', ')} from ${from}${embeds.map((e) => e.join).join('')}` +
    (conds.length ? ` where ${conds.join(' and ')}` : '') +
    (groups.length ? ` group by ${groups.join(', ')}` : '') +
    orderBy(src, plan.order) +
    range(plan, p)
  );
}

/** The rows a read counts: its filters and the embeds that must have rows, without the embeds' own output. */
function countSql(plan: ReadPlan, from: string, p: Params, what = 'count(*)'): string {
  const conds = [...plan.filters.map((f) => tree(plan.source, f, p)), ...existsConditions(plan, p, true)];
  return `select ${what} from ${from}${conds.length ? ` where ${conds.join(' and ')}` : ''}`;
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
function fullTextSearch(ref: string, c: Pick<Column, 'type'>, f: FtsFilter, p: Params): string {
  const config = f.language === undefined ? '' : `${p.add(f.language)}::regconfig, `;
  const vector = c.type === 'tsvector' ? ref : `to_tsvector(${config}${ref})`;
  return `${vector} @@ ${TSQUERY[f.op]}(${config}${p.add(f.value)})`;
}

/** `col op any(array)`: the value is an array literal of the column's type, or of text for patterns. */
function quantifiedCondition(ref: string, c: Pick<Column, 'type'>, f: QuantifiedFilter, p: Params): string {
  const pattern = PATTERN[f.op];
  const value = `${p.add(f.value)}::${pattern ? 'text' : c.type}[]`;
  return `${ref} ${pattern ?? COMPARISON[f.op]} ${f.quantifier}(${value})`;
}

function condition(src: Source, f: Filter, p: Params): string {
  const { sql: ref, type } = field(src, f.column, f.json);
  const c = { type };
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
  const parts = terms.map((t) => `${field(src, t.column, t.json).sql}${t.dir ? ` ${t.dir}` : ''}${t.nulls ? ` nulls ${t.nulls}` : ''}`);
  return ` order by ${parts.join(', ')}`;
}

function range(q: { limit: number | undefined; offset: number | undefined }, p: Params): string {
  return (
    (q.limit !== undefined ? ` limit ${p.add(String(q.limit))}::bigint` : '') + (q.offset !== undefined ? ` offset ${p.add(String(q.offset))}::bigint` : '')
  );
}

/**
 * CSV as PostgREST writes it (PR Query/SqlFragment.hs asCsvF): a line of the column names, as
 * row_to_json names them, taken from a row (none without rows), then each row in PostgreSQL's
 * record syntax without its parentheses, which quotes as CSV does.
 */
const CSV_BODY =
  `coalesce(min((select string_agg(_pgrst_k, ',') from json_object_keys(row_to_json(_pgrst_t)) _pgrst_k)), '') || E'\\n' || ` +
  `coalesce(string_agg(substring(_pgrst_t::text, 2, length(_pgrst_t::text) - 2), E'\\n'), '')`;

function bodyOf(shape: ResponseShape | 'none'): string {
  if (shape === 'none') return 'null::text';
  if (shape === 'csv') return CSV_BODY;
  return shape === 'object' ? `coalesce((json_agg(_pgrst_t)->0)::text, 'null')` : `coalesce(json_agg(_pgrst_t), '[]')::text`;
}

function table(rel: Relation): string {
  return `"public".${ident(rel.name)}`;
}

/** GET/HEAD on a table or view: one statement returning the page, its size and (when asked) the total. */
export function buildRead(rel: Relation, plan: ReadPlan, shape: ResponseShape, count: boolean): Statement {
  const p = new Params();
  const total = count ? `(${countSql(plan, table(rel), p)})` : 'null::bigint';
  const sql = `select ${total} as total, count(*) as page_total, ${bodyOf(shape)} as body from (${levelSql(plan, table(rel), p)}) _pgrst_t`;
  return { sql, params: p.values };
}

/** The count pgrst.inserted keeps through an upsert, read once the statement has run (PR Query/Statements.hs). */
const INSERTED = `nullif(current_setting('pgrst.inserted', true), '')::int`;

/** Adds one to pgrst.inserted (`+`) for a row an upsert tries, takes it back (`-`) for one it updates: always true (PR SqlFragment.hs addConfigPgrstInserted). */
function countInserted(op: '+' | '-'): string {
  return `set_config('pgrst.inserted', (coalesce(${INSERTED}, 0) ${op} 1)::text, true) <> '${op === '+' ? '0' : '-1'}'`;
}

/** The rows a read counts, for the planner to estimate (count=planned, count=estimated): PostgREST's readPlanToCountQuery. */
export function buildReadCount(rel: Relation, plan: ReadPlan): Statement {
  const p = new Params();
  return { sql: countSql(plan, table(rel), p, '1'), params: p.values };
}

/** Wraps a data-modifying statement: the response is built over what it returned, embeds included. */
function overModified(rel: Relation, modify: string, plan: ReadPlan, shape: ResponseShape | 'none', p: Params): Statement {
  const inner =
    shape === 'none' ? `select 1 from pgrst_source` : levelSql({ ...plan, limit: undefined, offset: undefined }, `pgrst_source as ${ident(rel.name)}`, p);
  return {
    sql: `with pgrst_source as (${modify}) select null::bigint as total, count(*) as page_total, ${bodyOf(shape)} as body, ${INSERTED} as inserted from (${inner}) _pgrst_t`,
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
export function buildInsert(rel: Relation, q: ParsedQuery, plan: ReadPlan, o: InsertOptions, shape: ResponseShape | 'none'): Statement {
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
  // Merging counts the rows inserted, so that an upsert that only updated answers 200 (PR Response.hs).
  if (o.resolution === 'merge-duplicates') modify += ` where ${countInserted('+')}`;
  if (o.resolution) modify += onConflict(rel, q, cols, o.resolution);
  return overModified(rel, modify + returning(rel, shape), plan, shape, p);
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
  return ` on conflict (${targetSql}) do update set ${cols.map((c) => `${ident(c.name)} = excluded.${ident(c.name)}`).join(', ')} where ${countInserted('-')}`;
}

/** PATCH on a table: the new values travel as one JSON parameter. */
export function buildUpdate(rel: Relation, q: ParsedQuery, plan: ReadPlan, values: Record<string, unknown>, shape: ResponseShape | 'none'): Statement {
  rejectRange(q, 'UPDATE');
  const cols = payloadColumns(rel, Object.keys(values));
  for (const c of cols) checkDimensions(c.name, c.type, values[c.name]);
  const p = new Params();
  if (cols.length === 0) {
    // PostgREST turns an empty PATCH into a no-op; the filters are still checked.
    where(rel, q.filters, new Params());
    return overModified(rel, `select ${ident(rel.name)}.* from ${table(rel)} where false`, plan, shape, p);
  }
  const body = p.add(JSON.stringify(values));
  const set = cols.map((c) => `${ident(c.name)} = _pgrst_b.${ident(c.name)}`).join(', ');
  const modify =
    `update ${table(rel)} set ${set} from jsonb_to_record(${body}::jsonb) as _pgrst_b(${recordDefinition(cols)})` +
    where(rel, q.filters, p) +
    returning(rel, shape);
  return overModified(rel, modify, plan, shape, p);
}

/** DELETE on a table. */
export function buildDelete(rel: Relation, q: ParsedQuery, plan: ReadPlan, shape: ResponseShape | 'none'): Statement {
  rejectRange(q, 'DELETE');
  const p = new Params();
  const modify = `delete from ${table(rel)}${where(rel, q.filters, p)}${returning(rel, shape)}`;
  return overModified(rel, modify, plan, shape, p);
}

/**
 * A function call with named arguments (`"a" := ...`) typed by jsonb_to_record, shaped as
 * PostgREST shapes it: a bare value, an array of values, an object, or an array of objects.
 */
export function buildRpc(fn: Routine, args: Record<string, unknown>, q: ParsedQuery, plan: ReadPlan, shape: ResponseShape, count: boolean): Statement {
  const p = new Params();
  const given = fn.args.filter((a) => a.name in args);
  for (const a of given) checkDimensions(a.name, a.type, args[a.name]);
  const call = `"public".${ident(fn.name)}(${given.map((a) => `${ident(a.name)} := _pgrst_args.${ident(a.name)}`).join(', ')})`;
  const argsFrom = given.length
    ? `jsonb_to_record(${p.add(JSON.stringify(args))}::jsonb) as _pgrst_args(${given.map((a) => `${ident(a.name)} ${a.type}`).join(', ')})`
    : '';
  const from = (relation: string) => (argsFrom ? `${argsFrom} cross join lateral ${relation}` : relation);

  if (fn.returns === 'composite') {
    const source = from(`${call} as ${ident(fn.name)}`);
    const total = count && fn.volatility !== 'v' ? `(${countSql(plan, source, p)})` : 'null::bigint';
    const body = fn.setof || shape === 'csv' ? bodyOf(shape) : bodyOf('object');
    return { sql: `select ${total} as total, count(*) as page_total, ${body} as body from (${levelSql(plan, source, p)}) _pgrst_t`, params: p.values };
  }

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
    const body =
      shape === 'csv'
        ? bodyOf(shape)
        : shape === 'object'
          ? `coalesce((json_agg(_pgrst_t.pgrst_scalar)->0)::text, 'null')`
          : `coalesce(json_agg(_pgrst_t.pgrst_scalar), '[]')::text`;
    return { sql: `select null::bigint as total, count(*) as page_total, ${body} as body from (${inner}) _pgrst_t`, params: p.values };
  }
  const inner = `select ${call} as pgrst_scalar${argsFrom ? ` from ${argsFrom}` : ''}`;
  const body = shape === 'csv' ? bodyOf(shape) : `coalesce((json_agg(_pgrst_t.pgrst_scalar)->0)::text, 'null')`;
  return {
    sql: `select null::bigint as total, count(*) as page_total, ${body} as body from (${inner}) _pgrst_t`,
    params: p.values,
  };
}

import { RestError, undefinedColumn } from './errors';
import { isLogicTree, type Condition, type Embed, type EmbedParams, type Filter, type OrderTerm, type ParsedQuery, type SelectItem } from './parse-query';
import type { Column, Relationship, Snapshot } from './schema-cache';

/** A relation or function result whose columns a query may name, under the alias its SQL gives it. */
export type Source = { name: string; columns: ReadonlyMap<string, Column> | null };

/** A select item of one level, its embeds taken out into `embeds`. */
export type PlainItem = Exclude<SelectItem, Embed>;

/**
 * One level of a read, resolved against the schema cache: every column checked, every embedded
 * resource tied to its relationship. build-sql turns it into SQL without looking anything up.
 */
export type ReadPlan = {
  source: Source;
  select: PlainItem[];
  filters: Condition[];
  order: OrderTerm[];
  limit: number | undefined;
  offset: number | undefined;
  embeds: EmbedPlan[];
  /** Whether the select aggregates, so that its other columns group the rows. */
  grouped: boolean;
};

export type EmbedPlan = {
  /** The embedded relation (its FROM) and its level of the read. */
  table: string;
  plan: ReadPlan;
  relationship: Relationship;
  /** The key of the response it fills (its alias or name), and the alias of its lateral join. */
  key: string;
  joinAlias: string;
  toOne: boolean;
  inner: boolean;
  spread: boolean;
  /** `actors()`: an embed that only filters, with nothing in the response. */
  empty: boolean;
  /** `actors=not.is.null` (true) or `actors=is.null` (false) on the parent. */
  exists: boolean | undefined;
};

export type PlanOptions = { aggregates: boolean };

export function column(src: Source, name: string): Column {
  const c = src.columns?.get(name);
  if (!c) throw undefinedColumn(src.name, name);
  return c;
}

function checkColumns(src: Source, c: Condition): void {
  if (isLogicTree(c)) c.children.forEach((child) => checkColumns(src, child));
  else column(src, c.column);
}

const TO_ONE = new Set(['m2o', 'o2o']);

/** The level's select with its columns checked: `count` without parentheses is PostgreSQL's `t.count`, counting rows. */
function planSelect(src: Source, items: readonly PlainItem[], options: PlanOptions): PlainItem[] {
  return items.map((it) => {
    if (it.kind === 'count' || (it.kind === 'column' && it.aggregate)) {
      if (!options.aggregates) throw new RestError(400, 'PGRST123', 'Use of aggregate functions is not allowed');
    }
    if (it.kind !== 'column') return it;
    if (it.column === 'count' && !it.json && !it.cast && !it.aggregate && !src.columns?.has('count'))
      return { kind: 'count', alias: it.alias, cast: undefined };
    column(src, it.column);
    return it;
  });
}

/**
 * PostgREST's findRel (Plan.hs): the relationships from `origin` that `embed` can mean. Without a
 * hint, its name is the other table, a foreign key or a column of one; with one, the name is the
 * table and the hint a foreign key, a column on either side or the junction.
 */
function findRelationship(snapshot: Snapshot, origin: string, embed: Embed): Relationship {
  const target = embed.name;
  const hint = embed.hint;
  const single = (r: Relationship, side: 0 | 1) => r.cardinality !== 'm2m' && r.columns.length === 1 && r.columns[0]![side] === hint;
  const singleTarget = (r: Relationship) => r.cardinality !== 'm2m' && r.columns.length === 1 && r.columns[0]![0] === target;
  const all = snapshot.relationships.get(origin) ?? [];
  const found = all.filter((r) => {
    if (r.isSelf && r.cardinality !== 'm2m') {
      if (hint === undefined) return (r.foreignTable === target && r.cardinality === 'o2m') || (singleTarget(r) && r.cardinality === 'm2o');
      return r.foreignTable === target && r.cardinality === 'o2m' && single(r, 1);
    }
    if (hint === undefined) return r.foreignTable === target || (r.cardinality !== 'm2m' && r.constraint === target) || singleTarget(r);
    if (r.foreignTable !== target) return false;
    if (r.cardinality === 'm2m') return r.junction.table === hint;
    return r.constraint === hint || single(r, 0) || single(r, 1);
  });
  if (found.length === 1) return found[0]!;
  if (found.length === 0) {
    const details = `Searched for a foreign key relationship between '${origin}' and '${target}'${hint ? ` using the hint '${hint}'` : ''} in the schema 'public', but no matches were found.`;
    return noRelationship(origin, target, details);
  }
  throw new RestError(
    300,
    'PGRST201',
    `Could not embed because more than one relationship was found for '${origin}' and '${target}'`,
    found.map(describeRelationship),
    `Try changing '${target}' to one of the following: ${found.map((r) => `'${r.foreignTable}!${r.cardinality === 'm2m' ? r.junction.table : r.constraint}'`).join(', ')}. Find the desired relationship in the 'details' key.`,
  );
}

function noRelationship(origin: string, target: string, details: string): never {
  throw new RestError(400, 'PGRST200', `Could not find a relationship between '${origin}' and '${target}' in the schema cache`, details);
}

const CARDINALITY = { m2o: 'many-to-one', o2m: 'one-to-many', o2o: 'one-to-one', m2m: 'many-to-many' } as const;

/** PostgREST's compressedRel: how PGRST201 lists the candidates. */
function describeRelationship(r: Relationship): Record<string, string> {
  const list = (cols: readonly string[]) => `(${cols.join(', ')})`;
  const relationship =
    r.cardinality === 'm2m'
      ? `${r.junction.table} using ${r.junction.constraint1}${list(r.junction.source.map(([, j]) => j))} and ${r.junction.constraint2}${list(r.junction.target.map(([, j]) => j))}`
      : `${r.constraint} using ${r.table}${list(r.columns.map(([c]) => c))} and ${r.foreignTable}${list(r.columns.map(([, f]) => f))}`;
  return { cardinality: CARDINALITY[r.cardinality], embedding: `${r.table} with ${r.foreignTable}`, relationship };
}

type Level = { params: EmbedParams; path: string[] };

/**
 * Resolves a read against the schema cache, as PostgREST's Plan.hs does: the root is `src`, whose
 * relationships are those of the relation `origin` (a table, or the table a function returns).
 */
export function planRead(snapshot: Snapshot, src: Source, origin: string, q: ParsedQuery, options: PlanOptions): ReadPlan {
  const walk: Walk = { snapshot, embedded: q.embedded, used: new Set(), aliased: new Map(), options };
  const plan = planLevel(walk, src, origin, q.select, { params: q, path: [] }, 0);
  for (const path of q.embedded.keys()) {
    if (walk.used.has(path)) continue;
    const resource = path.split('.').pop()!;
    const alias = walk.aliased.get(path);
    throw new RestError(
      400,
      'PGRST108',
      `'${resource}' is not an embedded resource in this request`,
      alias === undefined ? null : 'Target names are not allowed in filters if they have an alias',
      alias === undefined
        ? `Verify that '${resource}' is included in the 'select' query parameter.`
        : `Change '${resource}' to '${alias}' in filters, orders or limits.`,
    );
  }
  return plan;
}

/** What a walk down the select carries: the embedded params it has used, and aliased names for PGRST108's hint. */
type Walk = {
  snapshot: Snapshot;
  embedded: ReadonlyMap<string, EmbedParams>;
  used: Set<string>;
  aliased: Map<string, string>;
  options: PlanOptions;
};

function planLevel(walk: Walk, src: Source, origin: string, items: readonly SelectItem[], level: Level, depth: number): ReadPlan {
  const embeds: EmbedPlan[] = [];
  for (const it of items) {
    if (it.kind !== 'embed') continue;
    const relationship = findRelationship(walk.snapshot, origin, it);
    const table = relationship.foreignTable;
    const rel = walk.snapshot.relations.get(table);
    if (!rel) noRelationship(origin, table, `The relation '${table}' is not in the schema cache.`);
    const key = it.alias ?? it.name;
    const path = [...level.path, key];
    if (it.alias !== undefined) walk.aliased.set([...level.path, it.name].join('.'), it.alias);
    const params = walk.embedded.get(path.join('.'));
    if (params) walk.used.add(path.join('.'));
    const child = planLevel(
      walk,
      { name: `${table}_${depth + 1}`, columns: rel.columns },
      table,
      it.select,
      { params: params ?? { filters: [], order: [], limit: undefined, offset: undefined }, path },
      depth + 1,
    );
    if (it.spread && child.grouped) {
      throw new RestError(400, 'PGRST127', 'Feature not implemented', 'aggregates inside spread embedded resources are not supported by this server');
    }
    embeds.push({
      table,
      plan: child,
      relationship,
      key,
      joinAlias: `${origin}_${key}_${depth + 1}`,
      toOne: TO_ONE.has(relationship.cardinality),
      inner: it.join === 'inner',
      spread: it.spread,
      empty: it.select.length === 0,
      exists: undefined,
    });
  }
  const select = planSelect(
    src,
    items.filter((it): it is PlainItem => it.kind !== 'embed'),
    walk.options,
  );
  const filters: Condition[] = [];
  for (const f of level.params.filters) {
    const embed = !isLogicTree(f) && !src.columns?.has(f.column) ? embeds.find((e) => e.key === f.column) : undefined;
    if (embed) embed.exists = nullFilter(f as Filter, embed.key);
    else {
      checkColumns(src, f);
      filters.push(f);
    }
  }
  for (const t of level.params.order) column(src, t.column);
  const grouped = select.some((it) => it.kind === 'count' || (it.kind === 'column' && it.aggregate !== undefined));
  return { source: src, select, filters, order: level.params.order, limit: level.params.limit, offset: level.params.offset, embeds, grouped };
}

/** `actors=not.is.null` keeps the rows that have one (PostgREST's null filtering on embedded resources). */
function nullFilter(f: Filter, key: string): boolean {
  if (f.op === 'is' && !f.json && (f.value === 'null' || f.value === 'not_null')) return (f.value === 'not_null') !== f.negate;
  throw new RestError(
    400,
    'PGRST120',
    `Bad operator on the '${key}' embedded resource`,
    'Only is null or not is null filters are allowed on embedded resources',
  );
}

import { originOf, type Database } from '../db/database';

/**
 * A column of a table, view or function result, with its type as PostgreSQL spells it (safe to
 * splice) and without a type modifier, so that a filter value is never silently rounded or cut.
 */
export type Column = {
  name: string;
  type: string;
  /** The expression INSERT would use for it (identity columns included), from the catalogue. */
  default: string | null;
  generated: boolean;
};

export type Relation = { name: string; columns: Map<string, Column>; primaryKey: string[] };

/**
 * A foreign-key relationship from `table` to `foreignTable`, as PostgREST's schema cache holds it
 * (SchemaCache/Relationship.hs): `columns` pairs a column of `table` with the one of `foreignTable`
 * it matches. Many-to-many goes through `junction`, whose two foreign keys are part of its primary key.
 */
export type Relationship = {
  table: string;
  foreignTable: string;
  isSelf: boolean;
  constraint: string;
  columns: [string, string][];
} & (
  | { cardinality: 'm2o' | 'o2m' | 'o2o' }
  | {
      cardinality: 'm2m';
      /** `source` pairs a column of `table` with the junction's, `target` one of `foreignTable`. */
      junction: { table: string; constraint1: string; constraint2: string; source: [string, string][]; target: [string, string][] };
    }
);

export type FunctionArg = { name: string; type: string };

export type RoutineReturn = 'void' | 'scalar' | 'composite';

export type Routine = {
  name: string;
  /** Input arguments, in order; unnamed ones make the function uncallable by JSON key names. */
  args: FunctionArg[];
  /** How many leading input arguments have no default. */
  required: number;
  volatility: 'i' | 's' | 'v';
  setof: boolean;
  returns: RoutineReturn;
  /** Output columns when `returns` is composite; filters and select apply to these. */
  columns: Map<string, Column> | null;
  /** The relation of `public` whose rows it returns, if any: its relationships are the result's. */
  relation: string | undefined;
};

type RawForeignKey = { table: string; foreign_table: string; constraint: string; columns: [string, string][]; one_to_one: boolean };
type RawViewColumn = { view: string; base: string; column: string };
type RawColumn = { name: string; type: string; default: string | null; generated: boolean };
type RawTable = { name: string; columns: RawColumn[]; primary_key: string[] | null };
type RawRoutine = {
  name: string;
  volatility: 'i' | 's' | 'v';
  setof: boolean;
  nargdefaults: number;
  is_void: boolean;
  ret_typtype: string;
  ret_type: string;
  argnames: string[] | null;
  argmodes: string[] | null;
  argtypes: string[] | null;
  ret_columns: { name: string; type: string }[] | null;
  ret_relation: string | null;
};

// NOTE: both queries return one json text value, so that PGlite and pg hand back the same thing.
const TABLES_SQL = `
select coalesce(json_agg(t), '[]')::text as json from (
  select c.relname as name,
         coalesce(json_agg(json_build_object(
           'name', a.attname,
           'type', format_type(a.atttypid, null),
           'generated', a.attgenerated <> '',
           'default', case
             when a.attgenerated <> '' then null
             when a.attidentity <> '' then format('nextval(%L::regclass)', pg_get_serial_sequence(format('%I.%I', n.nspname, c.relname), a.attname))
             else pg_get_expr(d.adbin, d.adrelid) end
         ) order by a.attnum) filter (where a.attnum is not null), '[]') as columns,
         (select array_agg(pa.attname order by k.ord)
            from pg_index i
            cross join unnest(i.indkey::int2[]) with ordinality k(attnum, ord)
            join pg_attribute pa on pa.attrelid = i.indrelid and pa.attnum = k.attnum
           where i.indrelid = c.oid and i.indisprimary) as primary_key
  from pg_class c
  join pg_namespace n on n.oid = c.relnamespace
  left join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
  left join pg_attrdef d on d.adrelid = c.oid and d.adnum = a.attnum
  where n.nspname = 'public' and c.relkind in ('r', 'v', 'm', 'f', 'p')
  group by c.oid, c.relname, n.nspname
) t`;

/**
 * Every foreign key, in any schema: a view of `public` over a private table carries its keys
 * (PR allM2OandO2ORels). One-to-one when its columns are a primary key or unique. Relations are
 * named `schema.name`.
 */
const FOREIGN_KEYS_SQL = `
select coalesce(json_agg(r order by r.conrelid, r.constraint), '[]')::text as json from (
  select c.conrelid, format('%s.%s', tn.nspname, t.relname) as table, format('%s.%s', fn.nspname, f.relname) as foreign_table,
         c.conname as constraint,
         (select json_agg(json_build_array(a.attname, b.attname) order by k.ord)
            from unnest(c.conkey, c.confkey) with ordinality k(col, ref, ord)
            join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.col
            join pg_attribute b on b.attrelid = c.confrelid and b.attnum = k.ref) as columns,
         exists (select 1 from pg_constraint u
                  where u.conrelid = c.conrelid and u.contype in ('p', 'u')
                    and (select array_agg(x order by x) from unnest(u.conkey) x) = (select array_agg(x order by x) from unnest(c.conkey) x)) as one_to_one
  from pg_constraint c
  join pg_class t on t.oid = c.conrelid
  join pg_namespace tn on tn.oid = t.relnamespace
  join pg_class f on f.oid = c.confrelid
  join pg_namespace fn on fn.oid = f.relnamespace
  where c.contype = 'f' and c.conparentid = 0 and tn.nspname not in ('pg_catalog', 'information_schema')
) r`;

/**
 * The columns each view takes from each relation it reads, where the view keeps the column's
 * name: how a view's relationships are found from its base tables' keys (PostgREST's view key
 * dependencies, by name instead of by parsing the view's query tree).
 */
const VIEW_COLUMNS_SQL = `
select coalesce(json_agg(v), '[]')::text as json from (
  select distinct format('%s.%s', vn.nspname, v.relname) as view, format('%s.%s', bn.nspname, b.relname) as base, a.attname as column
  from pg_class v
  join pg_namespace vn on vn.oid = v.relnamespace
  join pg_rewrite r on r.ev_class = v.oid
  join pg_depend d on d.classid = 'pg_rewrite'::regclass and d.objid = r.oid and d.refclassid = 'pg_class'::regclass and d.refobjsubid > 0
  join pg_class b on b.oid = d.refobjid and b.oid <> v.oid
  join pg_namespace bn on bn.oid = b.relnamespace
  join pg_attribute a on a.attrelid = b.oid and a.attnum = d.refobjsubid
  where v.relkind in ('v', 'm') and vn.nspname not in ('pg_catalog', 'information_schema')
    and exists (select 1 from pg_attribute va where va.attrelid = v.oid and va.attname = a.attname and va.attnum > 0 and not va.attisdropped)
) v`;

/**
 * The relations of `public` that show `columns` of the relation `qualified` under their names: the
 * relation itself when it is in `public`, and every view over it, views over views included.
 */
function exposures(viewColumns: readonly RawViewColumn[]): (qualified: string, columns: readonly string[]) => string[] {
  const readers = new Map<string, Map<string, Set<string>>>();
  for (const { view, base, column } of viewColumns) {
    const byView = readers.get(base) ?? new Map<string, Set<string>>();
    byView.set(view, (byView.get(view) ?? new Set()).add(column));
    readers.set(base, byView);
  }
  const walk = (qualified: string, columns: readonly string[], seen: Set<string>): string[] => {
    if (seen.has(qualified)) return [];
    seen.add(qualified);
    const own = qualified.startsWith('public.') ? [qualified.slice('public.'.length)] : [];
    const views = [...(readers.get(qualified) ?? new Map<string, Set<string>>())].filter(([, cols]) => columns.every((c) => cols.has(c)));
    return [...own, ...views.flatMap(([view]) => walk(view, columns, seen))];
  };
  return (qualified, columns) => walk(qualified, columns, new Set());
}

const ROUTINES_SQL = `
select coalesce(json_agg(f), '[]')::text as json from (
  select p.proname as name, p.provolatile as volatility, p.proretset as setof, p.pronargdefaults as nargdefaults,
         p.prorettype = 'pg_catalog.void'::regtype as is_void,
         rt.typtype as ret_typtype, format_type(p.prorettype, null) as ret_type,
         p.proargnames as argnames, p.proargmodes::text[] as argmodes,
         (select array_agg(format_type(u.t, null) order by u.ord)
            from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) with ordinality u(t, ord)) as argtypes,
         (select json_agg(json_build_object('name', a.attname, 'type', format_type(a.atttypid, null)) order by a.attnum)
            from pg_attribute a where a.attrelid = rt.typrelid and a.attnum > 0 and not a.attisdropped) as ret_columns,
         (select c.relname from pg_class c where c.oid = rt.typrelid and c.relnamespace = 'public'::regnamespace) as ret_relation
  from pg_proc p
  join pg_namespace n on n.oid = p.pronamespace
  join pg_type rt on rt.oid = p.prorettype
  where n.nspname = 'public' and p.prokind = 'f'
) f`;

function toRoutine(r: RawRoutine): Routine {
  const types = r.argtypes ?? [];
  const modes = r.argmodes ?? types.map(() => 'i');
  const names = r.argnames ?? [];
  const args: FunctionArg[] = [];
  const outs: Column[] = [];
  types.forEach((type, i) => {
    const mode = modes[i] ?? 'i';
    const name = names[i] ?? '';
    if (mode === 'i' || mode === 'b' || mode === 'v') args.push({ name, type });
    if (mode === 'o' || mode === 'b' || mode === 't') outs.push({ name, type, default: null, generated: false });
  });
  let returns: RoutineReturn = 'scalar';
  let columns: Column[] | null = null;
  if (r.is_void) returns = 'void';
  else if (r.ret_typtype === 'c' && r.ret_columns) {
    returns = 'composite';
    columns = r.ret_columns.map((c) => ({ ...c, default: null, generated: false }));
  } else if (r.ret_type === 'record' && outs.length > 0) {
    returns = 'composite';
    columns = outs;
  }
  return {
    name: r.name,
    args,
    required: args.length - r.nargdefaults,
    volatility: r.volatility,
    setof: r.setof,
    returns,
    columns: columns ? new Map(columns.map((c) => [c.name, c])) : null,
    relation: r.ret_relation ?? undefined,
  };
}

/** The shortest time between two catalogue loads. */
export const RELOAD_INTERVAL_MS = 1000;

export type Snapshot = {
  relations: Map<string, Relation>;
  routines: Map<string, Routine[]>;
  /** Every relationship from a relation, by its name, in PostgREST's order. */
  relationships: Map<string, Relationship[]>;
};

/**
 * PostgREST's relationships from foreign keys: each key is many-to-one (or one-to-one) from its
 * table and one-to-many (or one-to-one) back; a table whose primary key holds two keys' columns
 * joins their tables many-to-many (PR SchemaCache.hs addM2MRels, addInverseRels).
 */
function relationshipsOf(
  keys: readonly RawForeignKey[],
  viewColumns: readonly RawViewColumn[],
  relations: ReadonlyMap<string, Relation>,
): Map<string, Relationship[]> {
  const exposed = exposures(viewColumns);
  const direct: Relationship[] = keys.flatMap((k) =>
    exposed(
      k.table,
      k.columns.map(([c]) => c),
    ).flatMap((table) =>
      exposed(
        k.foreign_table,
        k.columns.map(([, f]) => f),
      ).map((foreignTable): Relationship => ({
        table,
        foreignTable,
        isSelf: table === foreignTable,
        constraint: k.constraint,
        columns: k.columns,
        cardinality: k.one_to_one ? 'o2o' : 'm2o',
      })),
    ),
  );
  const manyToMany: Relationship[] = [];
  for (const a of direct) {
    if (a.cardinality !== 'm2o') continue;
    const pk = new Set(relations.get(a.table)?.primaryKey ?? []);
    for (const b of direct) {
      if (b.cardinality !== 'm2o' || b.table !== a.table || b.constraint === a.constraint) continue;
      if (![...a.columns, ...b.columns].every(([col]) => pk.has(col))) continue;
      manyToMany.push({
        table: a.foreignTable,
        foreignTable: b.foreignTable,
        isSelf: a.foreignTable === b.foreignTable,
        constraint: a.table,
        columns: [],
        cardinality: 'm2m',
        junction: {
          table: a.table,
          constraint1: a.constraint,
          constraint2: b.constraint,
          source: a.columns.map(([j, t]) => [t, j]),
          target: b.columns.map(([j, f]) => [f, j]),
        },
      });
    }
  }
  const inverse: Relationship[] = direct.map((r) => ({
    ...r,
    table: r.foreignTable,
    foreignTable: r.table,
    columns: r.columns.map(([c, f]) => [f, c]),
    cardinality: r.cardinality === 'o2o' ? 'o2o' : 'o2m',
  }));
  const byTable = new Map<string, Relationship[]>();
  for (const r of [...direct, ...manyToMany, ...inverse]) byTable.set(r.table, [...(byTable.get(r.table) ?? []), r]);
  return byTable;
}

/**
 * The catalogue of schema `public` as PostgREST's schema cache holds it: tables, views and their
 * columns, functions and their arguments. Loaded once per Database; a request that finds what it
 * needs costs no catalogue query. A lookup that misses is answered at once from the last load (a
 * misspelled name is PGRST205 without waiting) and starts a reload in the background, so that a
 * table, column or function created since is known to the requests that follow.
 */
export class SchemaCache {
  private snapshot: Snapshot | undefined;
  private loading: { startedAt: number; promise: Promise<Snapshot> } | undefined;
  private queued: Promise<Snapshot> | undefined;

  constructor(private readonly db: Database) {}

  /** The current snapshot, loading it the first time. */
  async current(): Promise<Snapshot> {
    return this.snapshot ?? this.reload(0);
  }

  /**
   * Loads the catalogue again unless a load that began at or after `since` (ms) is already under
   * way or done, so that a burst of misses costs one load. Loads start at most once per
   * RELOAD_INTERVAL_MS: requests naming unknown tables cannot make the server read the whole
   * catalogue again and again; a request that needs a fresher one shares the next.
   */
  async reload(since: number): Promise<Snapshot> {
    if (this.loading && this.loading.startedAt >= since) return this.loading.promise;
    if (this.queued) return this.queued;
    const wait = this.loading ? this.loading.startedAt + RELOAD_INTERVAL_MS - performance.now() : 0;
    if (wait <= 0) return this.start();
    this.queued = new Promise<void>((resolve) => setTimeout(resolve, wait).unref()).then(() => {
      this.queued = undefined;
      return this.start();
    });
    return this.queued;
  }

  private start(): Promise<Snapshot> {
    const startedAt = performance.now();
    const promise = this.load().then(
      (s) => {
        this.snapshot = s;
        return s;
      },
      (e: unknown) => {
        if (this.loading?.promise === promise) this.loading = undefined;
        throw e;
      },
    );
    this.loading = { startedAt, promise };
    return promise;
  }

  private async load(): Promise<Snapshot> {
    const [tables, routines, keys, viewColumns] = await Promise.all([
      this.db.query<{ json: string }>(TABLES_SQL),
      this.db.query<{ json: string }>(ROUTINES_SQL),
      this.db.query<{ json: string }>(FOREIGN_KEYS_SQL),
      this.db.query<{ json: string }>(VIEW_COLUMNS_SQL),
    ]);
    const relations = new Map<string, Relation>();
    for (const t of JSON.parse(tables.rows[0]!.json) as RawTable[]) {
      relations.set(t.name, { name: t.name, columns: new Map(t.columns.map((c) => [c.name, c])), primaryKey: t.primary_key ?? [] });
    }
    const byName = new Map<string, Routine[]>();
    for (const raw of JSON.parse(routines.rows[0]!.json) as RawRoutine[]) {
      const r = toRoutine(raw);
      byName.set(r.name, [...(byName.get(r.name) ?? []), r]);
    }
    return {
      relations,
      routines: byName,
      relationships: relationshipsOf(JSON.parse(keys.rows[0]!.json) as RawForeignKey[], JSON.parse(viewColumns.rows[0]!.json) as RawViewColumn[], relations),
    };
  }

  /** A reload for a lookup that missed, not waited for: its failure is the next request's to meet. */
  refresh(): void {
    this.reload(performance.now()).catch(() => {});
  }

  /** The overloads of function `name` as the last load knew them; none starts a reload in the background. */
  async routines(name: string): Promise<Routine[]> {
    const found = (await this.current()).routines.get(name) ?? [];
    if (!found.length) this.refresh();
    return found;
  }
}

const caches = new WeakMap<Database, SchemaCache>();

/** The schema cache of `db`; one per Database instance. */
export function schemaCache(db: Database): SchemaCache {
  const origin = originOf(db);
  let cache = caches.get(origin);
  if (!cache) {
    cache = new SchemaCache(origin);
    caches.set(origin, cache);
  }
  return cache;
}

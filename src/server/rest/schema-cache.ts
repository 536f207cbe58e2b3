import type { Database } from '../db/database';

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
};

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

const ROUTINES_SQL = `
select coalesce(json_agg(f), '[]')::text as json from (
  select p.proname as name, p.provolatile as volatility, p.proretset as setof, p.pronargdefaults as nargdefaults,
         p.prorettype = 'pg_catalog.void'::regtype as is_void,
         rt.typtype as ret_typtype, format_type(p.prorettype, null) as ret_type,
         p.proargnames as argnames, p.proargmodes::text[] as argmodes,
         (select array_agg(format_type(u.t, null) order by u.ord)
            from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) with ordinality u(t, ord)) as argtypes,
         (select json_agg(json_build_object('name', a.attname, 'type', format_type(a.atttypid, null)) order by a.attnum)
            from pg_attribute a where a.attrelid = rt.typrelid and a.attnum > 0 and not a.attisdropped) as ret_columns
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
  };
}

/** The shortest time between two catalogue loads. */
export const RELOAD_INTERVAL_MS = 1000;

type Snapshot = { relations: Map<string, Relation>; routines: Map<string, Routine[]> };

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
    const [tables, routines] = await Promise.all([this.db.query<{ json: string }>(TABLES_SQL), this.db.query<{ json: string }>(ROUTINES_SQL)]);
    const relations = new Map<string, Relation>();
    for (const t of JSON.parse(tables.rows[0]!.json) as RawTable[]) {
      relations.set(t.name, { name: t.name, columns: new Map(t.columns.map((c) => [c.name, c])), primaryKey: t.primary_key ?? [] });
    }
    const byName = new Map<string, Routine[]>();
    for (const raw of JSON.parse(routines.rows[0]!.json) as RawRoutine[]) {
      const r = toRoutine(raw);
      byName.set(r.name, [...(byName.get(r.name) ?? []), r]);
    }
    return { relations, routines: byName };
  }

  /** A reload for a lookup that missed, not waited for: its failure is the next request's to meet. */
  refresh(): void {
    this.reload(performance.now()).catch(() => {});
  }

  /**
   * The relation `name` as the last load knew it, or undefined. A miss, or a relation that lacks
   * one of `needColumns` (a column added at runtime), starts a reload in the background.
   */
  async relation(name: string, needColumns: readonly string[] = []): Promise<Relation | undefined> {
    const r = (await this.current()).relations.get(name);
    if (!r || !needColumns.every((c) => r.columns.has(c))) this.refresh();
    return r;
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
  let cache = caches.get(db);
  if (!cache) {
    cache = new SchemaCache(db);
    caches.set(db, cache);
  }
  return cache;
}

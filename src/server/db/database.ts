/** A field of a result, as both drivers describe it. */
export type Field = { name: string; dataTypeID: number };

export type QueryResult<T> = { rows: T[]; rowCount: number; fields: Field[] };

/** Anything that runs one parameterised statement: the database itself or an open transaction. */
export interface Queryable {
  /**
   * `name` prepares a statement that runs often with the same text: PostgreSQL then parses and
   * plans it once per connection instead of every time. PGlite has nothing to save and ignores it.
   */
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[], name?: string): Promise<QueryResult<T>>;
  /** Runs several statements with no parameters (migrations, seeds). */
  exec(sql: string): Promise<void>;
}

/** One parameterised statement, for `Database.batch`. */
export type Statement = { sql: string; params: readonly unknown[] };

/** What the database's connections are doing at this moment, for /metrics. */
export type DatabaseStats = {
  /** PostgreSQL's pool: connections open, those idle, and statements waiting for one. */
  pool?: { total: number; idle: number; waiting: number };
  /** Statements waiting for one of their caller's slots (fair-share.ts), on either database. */
  callersWaiting?: number;
};

/**
 * Deadlines of one transaction's statements where the defaults do not suit it, passed with the
 * call rather than through AsyncLocalStorage, whose promise hooks cost every request on Node 20
 * (bench/README.md, issue 40).
 */
export type Deadlines = {
  /**
   * PostgreSQL: a statement unanswered after this many milliseconds fails, and its connection is
   * destroyed, instead of after DATABASE_QUERY_TIMEOUT_MS: shorter for a probe that must answer at
   * once, longer for migrations, which may rewrite a large table or wait for another process's.
   */
  queryMs?: number;
  /**
   * The embedded database: each statement may run this many milliseconds (the watchdog,
   * statement-watchdog.ts). PostgreSQL keeps the caller's statement_timeout itself.
   */
  embeddedMs?: number;
};

/**
 * The one database interface of the server. The same SQL runs on PGlite and PostgreSQL.
 * Values come back alike from both: int8 as number, numeric as string, timestamptz as Date, json parsed.
 */
export interface Database extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** Runs `fn` in one READ COMMITTED transaction; commits when it resolves, rolls back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>, deadlines?: Deadlines): Promise<T>;
  /**
   * Runs the statements in order in one READ COMMITTED transaction and returns each one's result;
   * commits when all succeed, rolls back when one fails. For a transaction known in full up front
   * (a request's claims and its statement): on PostgreSQL it costs one round trip instead of one
   * per statement plus BEGIN and COMMIT.
   */
  batch(statements: readonly Statement[], deadlines?: Deadlines): Promise<QueryResult<Record<string, unknown>>[]>;
  close(): Promise<void>;
  /** A wrapper passes its inner database's on; absent where nothing is worth reporting. */
  stats?(): DatabaseStats;
  /**
   * This database as one request of `key` uses it, its statements counted against that caller's
   * share (fair-share.ts); absent on a database without shares.
   */
  forCaller?(key: string): Database;
  /** The database a forCaller view was made from: what is kept per database is kept by it (originOf). */
  readonly origin?: Database;
}

/** The database itself rather than a request's view of it, for what is kept once per database (a schema cache, a provisioner). */
export function originOf(db: Database): Database {
  return db.origin ?? db;
}

/** A database error carrying PostgreSQL's SQLSTATE and fields, whichever driver raised it. */
export type DbError = Error & {
  code?: string;
  detail?: string;
  hint?: string;
  constraint?: string;
};

export function isDbError(e: unknown): e is DbError {
  return e instanceof Error && typeof (e as DbError).code === 'string';
}

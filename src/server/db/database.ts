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
 * The one database interface of the server. The same SQL runs on PGlite and PostgreSQL.
 * Values come back alike from both: int8 as number, numeric as string, timestamptz as Date, json parsed.
 */
export interface Database extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** Runs `fn` in one READ COMMITTED transaction; commits when it resolves, rolls back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Runs the statements in order in one READ COMMITTED transaction and returns each one's result;
   * commits when all succeed, rolls back when one fails. For a transaction known in full up front
   * (a request's claims and its statement): on PostgreSQL it costs one round trip instead of one
   * per statement plus BEGIN and COMMIT.
   */
  batch(statements: readonly Statement[]): Promise<QueryResult<Record<string, unknown>>[]>;
  close(): Promise<void>;
  /** A wrapper passes its inner database's on; absent where nothing is worth reporting. */
  stats?(): DatabaseStats;
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

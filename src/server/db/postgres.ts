import { createHash } from 'node:crypto';
import { Socket } from 'node:net';
import pg from 'pg';
import { type Database, type DbError, isDbError, type Queryable, type QueryResult } from './database';
import { classifyDbFailure, DbConnectionError, SOCKET_CODES } from './db-failure';

// NOTE: counts and ids of type int8 fit in a double here; keep them numbers as PGlite does.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

function result<T>(r: pg.QueryResult): QueryResult<T> {
  return {
    rows: r.rows as T[],
    rowCount: r.rowCount ?? r.rows.length,
    fields: r.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })),
  };
}

/**
 * A statement with its client-side deadline, pg's query_timeout: past it the statement fails with
 * "Query read timeout", and pg destroys the connection, whose pipeline it blocks. (@types/pg
 * leaves the option out of a query's config, where pg reads it: pg/lib/client.js.)
 */
function timed(config: pg.QueryConfig<unknown[]>, query_timeout: number): pg.QueryConfig<unknown[]> {
  return Object.assign(config, { query_timeout });
}

function wrap(c: pg.PoolClient, timeoutMs: number): Queryable {
  return {
    async exec(sql) {
      // Without parameters pg uses the simple protocol, which accepts several statements.
      await c.query(timed({ text: sql }, timeoutMs)).catch(rethrow);
    },
    async query<T>(sql: string, params: readonly unknown[] = [], name?: string): Promise<QueryResult<T>> {
      return result<T>(await c.query(timed({ name, text: sql, values: [...params] }, timeoutMs)).catch(rethrow));
    },
  };
}

// node-postgres says these in words only: a lost connection, pg-pool's timeout (which covers
// both waiting for a free connection and opening a new one), and a statement past its query_timeout.
const LOST = /^(Connection terminated|Client has encountered a connection error|Client was closed)/;
const POOL_TIMEOUT = 'timeout exceeded when trying to connect';
const QUERY_TIMEOUT = 'Query read timeout';

/** The driver's error, with a code where node-postgres gives none, so that db-failure.ts can tell what it was. */
function rethrow(e: unknown): never {
  if (e instanceof Error && SOCKET_CODES.has((e as DbError).code ?? '')) throw new DbConnectionError('socket', e.message, { cause: e });
  if (e instanceof Error && !isDbError(e)) {
    if (e.message === POOL_TIMEOUT) throw new DbConnectionError('pool_timeout', e.message, { cause: e });
    if (e.message === QUERY_TIMEOUT)
      throw new DbConnectionError('query_timeout', 'The database did not answer the statement within its deadline', { cause: e });
    if (LOST.test(e.message)) throw new DbConnectionError('08006', e.message, { cause: e });
  }
  throw e;
}

/** Defaults of DATABASE_POOL_TIMEOUT_MS, DATABASE_LOCK_TIMEOUT_MS and DATABASE_QUERY_TIMEOUT_MS. */
export const DEFAULT_POOL_TIMEOUT_MS = 2000;
export const DEFAULT_LOCK_TIMEOUT_MS = 2000;
/**
 * 15 s: past the longest statement_timeout of a request (the authenticated role's 8 s,
 * rest/execute.ts), whose 57014 (504) must arrive first, with room for a loaded machine.
 */
export const DEFAULT_QUERY_TIMEOUT_MS = 15_000;

export type PostgresOptions = {
  /** How long a statement may wait for a free pooled connection, or for a new one to open. */
  poolTimeoutMs?: number;
  /** How long any statement may wait for a lock (PostgreSQL's lock_timeout), on every connection. */
  lockTimeoutMs?: number;
  /**
   * How long a statement may go unanswered, whatever PostgreSQL does (a server paused or a network
   * that drops packets answers nothing, and statement_timeout runs in the server): then it fails
   * with DbConnectionError('query_timeout') and its connection is destroyed. A transaction may
   * set another (Deadlines.queryMs).
   */
  queryTimeoutMs?: number;
};

/**
 * The statements each connection has prepared. REST statements take their shape from the request,
 * so a connection that has prepared this many is replaced rather than left to grow.
 */
const prepared = new WeakMap<pg.PoolClient, Set<string>>();
const MAX_PREPARED = 500;

/**
 * Statement names by text, so that the same text is hashed once rather than on every request:
 * a SHA-1 of each statement cost case 1 about 50k instructions (bench/README.md, issue 40).
 * Bounded like a connection's prepared statements, and emptied when full.
 */
const namesByText = new Map<string, string>();

/** A statement's name on its connection: the same text is parsed and planned there only once. */
function preparedName(client: pg.PoolClient, sql: string): string {
  let name = namesByText.get(sql);
  if (name === undefined) {
    if (namesByText.size >= MAX_PREPARED) namesByText.clear();
    namesByText.set(sql, (name = `nh_${createHash('sha1').update(sql).digest('base64url')}`));
  }
  let names = prepared.get(client);
  if (!names) prepared.set(client, (names = new Set()));
  names.add(name);
  return name;
}

const tooManyPrepared = (client: pg.PoolClient) => (prepared.get(client)?.size ?? 0) > MAX_PREPARED;

/**
 * A client on a socket of our own, handed to pg through its public `stream` option, so that a
 * batch can cork it: pg writes each message of a pipelined statement on its own, and uncorked a
 * read's ~14 messages leave in as many system calls and, with TCP_NODELAY, as many packets.
 */
class CorkableClient extends pg.Client {
  readonly socket: Socket;
  constructor(config: pg.ClientConfig) {
    const socket = new Socket();
    super({ ...config, stream: () => socket });
    this.socket = socket;
  }
}

/**
 * Opens a pool on a real PostgreSQL. A statement that finds no connection within `poolTimeoutMs`
 * fails with DbConnectionError('pool_timeout'), one that waits longer than `lockTimeoutMs` for a
 * lock with 55P03, so that a held row answers its callers fast instead of filling the pool, and
 * one unanswered after `queryTimeoutMs` with DbConnectionError('query_timeout'), its connection
 * destroyed rather than given back to the pool.
 */
export async function openPostgres(url: string, max = 20, opts: PostgresOptions = {}): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    idleTimeoutMillis: 30_000,
    pipeline: true,
    Client: CorkableClient as unknown as new () => pg.ClientBase,
    connectionTimeoutMillis: opts.poolTimeoutMs ?? DEFAULT_POOL_TIMEOUT_MS,
    // A startup parameter: every statement of every connection has it, at no round trip's cost.
    lock_timeout: opts.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS,
  });
  // An idle client that loses its server must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  const defaultTimeoutMs = opts.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
  // A checked-out client whose server goes away emits 'error' too, which nothing may leave
  // unhandled; its next query fails with the reason, and the client is then not reused.
  const ignore = () => {};
  const connect = async () => {
    const client = await pool.connect().catch(rethrow);
    client.on('error', ignore);
    return client;
  };
  const release = (client: pg.PoolClient, destroy: boolean) => {
    client.off('error', ignore);
    client.release(destroy);
  };
  /** Runs `fn` on one connection; one that was lost or reset is not reused. */
  const withClient = async <T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
    const client = await connect();
    try {
      const out = await fn(client);
      release(client, false);
      return out;
    } catch (e) {
      release(client, classifyDbFailure(e)?.kind === 'unavailable');
      throw e;
    }
  };
  await withClient((c) => wrap(c, defaultTimeoutMs).query('select 1'));
  const transaction: Database['transaction'] = (fn, deadlines) =>
    withClient(async (client) => {
      const tx = wrap(client, deadlines?.queryMs ?? defaultTimeoutMs);
      try {
        await tx.exec('begin');
        const out = await fn(tx);
        await tx.exec('commit');
        return out;
      } catch (e) {
        // A connection lost or past its deadline is destroyed: nothing to roll back on it.
        if (classifyDbFailure(e)?.kind !== 'unavailable') await tx.exec('rollback').catch(() => {});
        throw e;
      }
    });
  return {
    kind: 'postgres',
    query: (sql, params, name) => withClient((c) => wrap(c, defaultTimeoutMs).query(sql, params, name)),
    exec: (sql) => withClient((c) => wrap(c, defaultTimeoutMs).exec(sql)),
    transaction,
    async batch(statements, deadlines) {
      // One round trip: the connection pipelines (pg's pipeline mode), so the transaction's
      // messages all leave before the first answer, in one write (the cork), and PostgreSQL
      // answers them in order. The statements are prepared once per connection. On an error
      // PostgreSQL refuses the rest of the transaction and answers COMMIT with a rollback, so the
      // connection goes back clean.
      const client = await connect();
      const socket = client instanceof CorkableClient ? client.socket : undefined;
      const deadline = deadlines?.queryMs ?? defaultTimeoutMs;
      let sent: Promise<pg.QueryResult>[];
      socket?.cork();
      try {
        sent = [
          client.query(timed({ text: 'begin' }, deadline)),
          ...statements.map((s) => client.query(timed({ name: preparedName(client, s.sql), text: s.sql, values: [...s.params] }, deadline))),
          client.query(timed({ text: 'commit' }, deadline)),
        ];
      } catch (e) {
        // Nothing half-sent may go back to the pool.
        release(client, true);
        throw e;
      } finally {
        socket?.uncork();
      }
      const settled = await Promise.allSettled(sent);
      const failed = settled.find((r) => r.status === 'rejected');
      // A failure without a SQLSTATE is the connection's own (lost, past its deadline): it is not reused.
      release(client, tooManyPrepared(client) || (failed !== undefined && !isDbError(failed.reason)));
      if (failed) rethrow(failed.reason);
      return settled.slice(1, -1).map((r) => result<Record<string, unknown>>((r as PromiseFulfilledResult<pg.QueryResult>).value));
    },
    close: () => pool.end(),
    stats: () => ({ pool: { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount } }),
  };
}

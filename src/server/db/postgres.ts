import { createHash } from 'node:crypto';
import type { Writable } from 'node:stream';
import pg from 'pg';
import { type Database, isDbError, type Queryable, type QueryResult } from './database';

// NOTE: counts and ids of type int8 fit in a double here; keep them numbers as PGlite does.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

function result<T>(r: pg.QueryResult): QueryResult<T> {
  return {
    rows: r.rows as T[],
    rowCount: r.rowCount ?? r.rows.length,
    fields: r.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })),
  };
}

function wrap(c: pg.Pool | pg.PoolClient): Queryable {
  return {
    async exec(sql) {
      // Without parameters pg uses the simple protocol, which accepts several statements.
      await c.query(sql);
    },
    async query<T>(sql: string, params: readonly unknown[] = [], name?: string): Promise<QueryResult<T>> {
      return result<T>(await c.query({ name, text: sql, values: [...params] }));
    },
  };
}

/**
 * The statements each connection has prepared. REST statements take their shape from the request,
 * so a connection that has prepared this many is replaced rather than left to grow.
 */
const prepared = new WeakMap<pg.PoolClient, Set<string>>();
const MAX_PREPARED = 500;

/** A statement's name on its connection: the same text is parsed and planned there only once. */
function preparedName(client: pg.PoolClient, sql: string): string {
  const name = `nh_${createHash('sha1').update(sql).digest('base64url')}`;
  let names = prepared.get(client);
  if (!names) prepared.set(client, (names = new Set()));
  names.add(name);
  return name;
}

const tooManyPrepared = (client: pg.PoolClient) => (prepared.get(client)?.size ?? 0) > MAX_PREPARED;

/** Opens a pool on a real PostgreSQL. */
export async function openPostgres(url: string, max = 20): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max, idleTimeoutMillis: 30_000, pipeline: true });
  // An idle client that loses its server must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  await pool.query('select 1');
  const base = wrap(pool);
  const transaction: Database['transaction'] = async (fn) => {
    const client = await pool.connect();
    try {
      await client.query('begin');
      const out = await fn(wrap(client));
      await client.query('commit');
      return out;
    } catch (e) {
      await client.query('rollback').catch(() => {});
      throw e;
    } finally {
      client.release();
    }
  };
  return {
    kind: 'postgres',
    query: base.query,
    exec: base.exec,
    transaction,
    async batch(statements) {
      // One round trip: pipelined, the transaction's messages leave in one write (the cork) and
      // PostgreSQL answers them in order. The statements are prepared once per connection. On an
      // error PostgreSQL refuses the rest of the transaction and answers COMMIT with a rollback,
      // so the connection goes back clean.
      const client = await pool.connect();
      const stream = (client as unknown as { connection: { stream: Writable } }).connection.stream;
      let sent: Promise<pg.QueryResult>[];
      stream.cork();
      try {
        sent = [
          client.query('begin'),
          ...statements.map((s) => client.query({ name: preparedName(client, s.sql), text: s.sql, values: [...s.params] })),
          client.query('commit'),
        ];
      } catch (e) {
        // Nothing half-sent may go back to the pool.
        client.release(true);
        throw e;
      } finally {
        stream.uncork();
      }
      const settled = await Promise.allSettled(sent);
      const failed = settled.find((r) => r.status === 'rejected');
      // A failure without a SQLSTATE is the connection's own (lost, timed out): it is not reused.
      client.release(tooManyPrepared(client) || (failed !== undefined && !isDbError(failed.reason)));
      if (failed) throw failed.reason;
      return settled.slice(1, -1).map((r) => result<Record<string, unknown>>((r as PromiseFulfilledResult<pg.QueryResult>).value));
    },
    close: () => pool.end(),
  };
}

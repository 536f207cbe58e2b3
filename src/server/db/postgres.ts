import pg from 'pg';
import type { Database, Queryable, QueryResult } from './database';
import { inlineParams } from './inline-params';

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
    async query<T>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<T>> {
      return result<T>(await c.query({ text: sql, values: [...params] }));
    },
  };
}

/** Opens a pool on a real PostgreSQL. */
export async function openPostgres(url: string, max = 20): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max, idleTimeoutMillis: 30_000 });
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
      // NOTE: node-postgres cannot pipeline, so the transaction goes as one simple-protocol
      // message with the parameters written in as literals: one round trip instead of
      // 2 + statements (measured in bench/README.md). On an error PostgreSQL skips the rest of the
      // message and leaves the transaction aborted, so it is rolled back before the client goes back.
      let text: string;
      try {
        text = ['begin', ...statements.map((s) => inlineParams(s.sql, s.params)), 'commit'].join(';\n');
      } catch (e) {
        if (!(e instanceof TypeError)) throw e;
        // A value without a literal (U+0000, an object) is bound as usual, for PostgreSQL's own answer.
        return transaction(async (tx) => {
          const out = [];
          for (const s of statements) out.push(await tx.query<Record<string, unknown>>(s.sql, s.params));
          return out;
        });
      }
      const client = await pool.connect();
      try {
        const results = (await client.query(text)) as unknown as pg.QueryResult[];
        return results.slice(1, -1).map((r) => result<Record<string, unknown>>(r));
      } catch (e) {
        await client.query('rollback').catch(() => {});
        throw e;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

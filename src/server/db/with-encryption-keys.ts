import type { Database, QueryResult, Statement } from './database';

/** The key everything is encrypted with, and during a rotation the one it replaces (read only). */
export type EncryptionKeys = { current: string; previous: string | undefined };

/**
 * Gives the keys to the transaction as transaction-local settings, which private.encryption_key()
 * and private.decrypt_with_either_key() read: they stay in the backend's memory and end with the
 * transaction, never in a table, the WAL or a dump. The values are bound parameters, so they are
 * not in the statement text either.
 */
export function encryptionKeysStatement(keys: EncryptionKeys): Statement {
  return {
    sql: `select set_config('nodeharbor.encryption_key', $1, true), set_config('nodeharbor.encryption_key_previous', $2, true)`,
    params: [keys.current, keys.previous ?? ''],
  };
}

/**
 * The database with the keys set in every transaction it runs: REST requests, the worker and the
 * provisioners, the CLI and start-up code alike, so no path can miss them. It rides in the same
 * round trip as the statement for `query` and `batch`. `exec` carries no key: it is for migrations
 * and seeds, which encrypt nothing.
 */
export function withEncryptionKeys(db: Database, keys: EncryptionKeys): Database {
  const set = encryptionKeysStatement(keys);
  return {
    kind: db.kind,
    exec: (sql) => db.exec(sql),
    async query<T>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<T>> {
      const [, result] = await db.batch([set, { sql, params }]);
      return result as QueryResult<T>;
    },
    transaction: (fn, deadlines) =>
      db.transaction(async (tx) => {
        await tx.query(set.sql, set.params, 'nh_encryption_keys');
        return fn(tx);
      }, deadlines),
    async batch(statements, deadlines) {
      return (await db.batch([set, ...statements], deadlines)).slice(1);
    },
    close: () => db.close(),
    stats: () => db.stats?.() ?? {},
  };
}

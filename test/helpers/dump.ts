import type { Queryable } from '../../src/server/db/database';

/** Every row of every table of every schema, as text: what a dump of the data holds. */
export async function dumpTables(db: Queryable): Promise<string> {
  const { rows: tables } = await db.query<{ name: string }>(
    `select format('%I.%I', table_schema, table_name) as name from information_schema.tables
      where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')`,
  );
  const out: string[] = [];
  for (const { name } of tables) out.push(...(await db.query<{ r: string }>(`select t::text as r from ${name} t`)).rows.map((r) => r.r));
  return out.join('\n');
}

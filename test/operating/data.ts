import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Manifest } from '../../src/server/backup/backup-format';
import { signManifest } from '../../src/server/backup/backup-signature';
import type { Queryable } from '../../src/server/db/database';

/**
 * What a restore must bring back, read as an operator would check it: the users, each one's
 * balance, ledger sum and rows, the services, and the stored API keys decrypted (`db` must carry
 * the encryption keys: deps.db).
 */
export async function holdings(db: Queryable) {
  const users = await db.query<{ email: string; balance: string; ledger: string; rows: number }>(
    `select u.email, coalesce(c.balance, 0)::text as balance,
            coalesce((select sum(amount) from public.credit_transactions t where t.user_id = u.id), 0)::numeric(14, 2)::text as ledger,
            (select count(*) from public.credit_transactions t where t.user_id = u.id)::int as rows
       from auth.users u left join public.user_credits c on c.user_id = u.id order by u.email`,
  );
  const services = await db.query<{ name: string; state: string; api_key: string }>(
    `select name, state::text, private.decrypt_with_either_key(api_key_encrypted) as api_key from private.services order by name`,
  );
  return { users: users.rows, services: services.rows };
}

/** The users whose balance is not the sum of their ledger rows: none in a consistent database. */
export async function balancesOffTheLedger(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ email: string }>(
    `select u.email from auth.users u join public.user_credits c on c.user_id = u.id
      where c.balance <> coalesce((select sum(amount) from public.credit_transactions t where t.user_id = u.id), 0)`,
  );
  return rows.map((r) => r.email);
}

/** A backup's manifest line and content lines, decompressed (both gzip members). */
export function openBackup(file: Buffer): { manifest: Record<string, unknown>; content: string[] } {
  const [manifest, ...content] = gunzipSync(file).toString('utf8').split('\n');
  return { manifest: JSON.parse(manifest!) as Record<string, unknown>, content };
}

/**
 * A backup file from a manifest and content lines, as take-backup.ts writes one. `rehash` gives it
 * the content's checksum (an editor's recomputed SHA-256, leaving the signature as it was);
 * `unsigned` drops the signature, as a backup of before issue 42 has none; `signWith` signs it with
 * that ENCRYPTION_KEY, as NodeHarbor would.
 */
export function packBackup(
  manifest: Record<string, unknown>,
  content: string[],
  opts: { rehash?: boolean; unsigned?: boolean; signWith?: string } = {},
): Buffer {
  const text = content.join('\n');
  let head: Record<string, unknown> = opts.rehash || opts.signWith ? { ...manifest, sha256: createHash('sha256').update(text).digest('hex') } : { ...manifest };
  if (opts.unsigned) delete head.signature;
  if (opts.signWith) head = { ...head, signature: signManifest(head as Manifest, opts.signWith) };
  return Buffer.concat([gzipSync(`${JSON.stringify(head)}\n`), gzipSync(text)]);
}

/** Adds a row at the end of a table of a backup's content, and counts it in the manifest. */
export function addRow(manifest: Record<string, unknown>, content: string[], table: string, row: Record<string, unknown>) {
  const tables = (manifest.tables as { name: string; rows: number }[]).map((t) => (t.name === table ? { ...t, rows: t.rows + 1 } : t));
  const next = content.findIndex((l, i) => i > content.indexOf(JSON.stringify(['table', table])) && l.startsWith('['));
  const lines = [...content];
  lines.splice(next === -1 ? lines.length - 1 : next, 0, JSON.stringify(row));
  return { manifest: { ...manifest, tables }, content: lines };
}

/** Changes the row of `table` that holds `marker` (an id, say). */
export function editRow(content: string[], table: string, marker: string, edit: (line: string) => string): string[] {
  const start = content.indexOf(JSON.stringify(['table', table]));
  const i = content.findIndex((l, j) => j > start && l.includes(marker));
  if (start === -1 || i === -1 || content.slice(start + 1, i).some((l) => l.startsWith('['))) throw new Error(`no row of ${table} holds ${marker}`);
  const edited = edit(content[i]!);
  if (edited === content[i]) throw new Error(`the edit changed nothing in ${content[i]}`);
  return content.map((l, j) => (j === i ? edited : l));
}

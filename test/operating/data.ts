import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
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

/** A backup file from a manifest and content lines, as take-backup.ts writes one; `rehash` gives it the content's checksum. */
export function packBackup(manifest: Record<string, unknown>, content: string[], opts: { rehash?: boolean } = {}): Buffer {
  const text = content.join('\n');
  const head = opts.rehash ? { ...manifest, sha256: createHash('sha256').update(text).digest('hex') } : manifest;
  return Buffer.concat([gzipSync(`${JSON.stringify(head)}\n`), gzipSync(text)]);
}

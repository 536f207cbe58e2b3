import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Queryable } from './db/database';
import type { EncryptionKeys } from './db/with-encryption-keys';
import { ConfigError } from './env';

// Migration 0017 computes the same value with pgcrypto's hmac(label, key, 'sha256').
const LABEL = 'nodeharbor encryption key check';
const SETTING = 'encryption_key_check';

/** What the database keeps instead of the key: it tells keys apart and reveals nothing of them. */
export function encryptionKeyCheck(key: string): string {
  return createHmac('sha256', key).update(LABEL).digest('hex');
}

const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * Refuses a start with a key the data was not encrypted with, which would otherwise write data
 * nothing could read. The first start records the key's check value. During a rotation the stored
 * value is still the previous key's until keys:reencrypt has moved everything to the current one.
 */
export async function checkEncryptionKey(db: Queryable, keys: EncryptionKeys): Promise<void> {
  const { rows } = await db.query<{ value: string }>(
    `insert into nodeharbor.settings (key, value) values ($1, $2)
     on conflict (key) do update set key = excluded.key
     returning value`,
    [SETTING, encryptionKeyCheck(keys.current)],
  );
  const stored = rows[0]!.value;
  if (same(stored, encryptionKeyCheck(keys.current))) return;
  if (keys.previous !== undefined && same(stored, encryptionKeyCheck(keys.previous))) return;
  throw new ConfigError([
    'ENCRYPTION_KEY is not the key this database was set up with: stored API keys could not be read. Set it back to the original key, or give the original as ENCRYPTION_KEY_PREVIOUS to rotate to a new one.',
  ]);
}

/** After keys:reencrypt: from now on only the current key is accepted at start. */
export async function recordEncryptionKey(db: Queryable, key: string): Promise<void> {
  await db.query(`update nodeharbor.settings set value = $2 where key = $1`, [SETTING, encryptionKeyCheck(key)]);
}

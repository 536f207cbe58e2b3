import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { Queryable } from '../db/database';

const ALGORITHM = 'aes-gcm-hkdf';
const KEY_ID = 'nodeharbor-settings';

/** GoTrue's EncryptedString, stored as JSON text in the `secret` column. */
type EncryptedString = { key_id: string; alg: string; nonce: string; data: string };

/** The key bootstrap writes to nodeharbor.settings at every start; every process shares it. */
async function encryptionKey(db: Queryable): Promise<string> {
  const { rows } = await db.query<{ value: string }>(`select value from nodeharbor.settings where key = 'encryption_key'`);
  const key = rows[0]?.value;
  if (!key) throw new Error('nodeharbor.settings has no encryption_key');
  return key;
}

// As GoTrue: one AES key per object, derived with HKDF from the master key and the object's id,
// so a ciphertext copied onto another factor's row does not decrypt.
function objectKey(master: string, objectId: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(master, 'utf8'), Buffer.alloc(0), Buffer.from(objectId, 'utf8'), 32));
}

/** Encrypts a factor's secret for storage, bound to the factor's id. */
export async function encryptSecret(db: Queryable, objectId: string, plaintext: string): Promise<string> {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', objectKey(await encryptionKey(db), objectId), nonce);
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  const es: EncryptedString = { key_id: KEY_ID, alg: ALGORITHM, nonce: nonce.toString('base64'), data: data.toString('base64') };
  return JSON.stringify(es);
}

/** Decrypts what encryptSecret stored; throws (without the secret in the message) when it cannot. */
export async function decryptSecret(db: Queryable, objectId: string, stored: string): Promise<string> {
  const es = JSON.parse(stored) as EncryptedString;
  if (es.alg !== ALGORITHM) throw new Error(`unsupported secret encryption ${es.alg}`);
  const data = Buffer.from(es.data, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', objectKey(await encryptionKey(db), objectId), Buffer.from(es.nonce, 'base64'));
  decipher.setAuthTag(data.subarray(data.length - 16));
  return Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]).toString('utf8');
}

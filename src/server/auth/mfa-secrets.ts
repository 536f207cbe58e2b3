import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { EncryptionKeys } from '../db/with-encryption-keys';

const ALGORITHM = 'aes-gcm-hkdf';
const KEY_ID = 'ENCRYPTION_KEY';

/** GoTrue's EncryptedString, stored as JSON text in the `secret` column. */
type EncryptedString = { key_id: string; alg: string; nonce: string; data: string };

// As GoTrue: one AES key per object, derived with HKDF from the master key and the object's id,
// so a ciphertext copied onto another factor's row does not decrypt.
function objectKey(master: string, objectId: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(master, 'utf8'), Buffer.alloc(0), Buffer.from(objectId, 'utf8'), 32));
}

/** Encrypts a factor's secret for storage, bound to the factor's id. */
export function encryptSecret(keys: EncryptionKeys, objectId: string, plaintext: string): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', objectKey(keys.current, objectId), nonce);
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  const es: EncryptedString = { key_id: KEY_ID, alg: ALGORITHM, nonce: nonce.toString('base64'), data: data.toString('base64') };
  return JSON.stringify(es);
}

function decryptWith(master: string, objectId: string, es: EncryptedString): string {
  const data = Buffer.from(es.data, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', objectKey(master, objectId), Buffer.from(es.nonce, 'base64'));
  decipher.setAuthTag(data.subarray(data.length - 16));
  return Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]).toString('utf8');
}

/**
 * Decrypts what encryptSecret stored, with the current key or, during a rotation, the previous
 * one; throws (without the secret in the message) when neither opens it.
 */
export function decryptSecret(keys: EncryptionKeys, objectId: string, stored: string): string {
  const es = JSON.parse(stored) as EncryptedString;
  if (es.alg !== ALGORITHM) throw new Error(`unsupported secret encryption ${es.alg}`);
  try {
    return decryptWith(keys.current, objectId, es);
  } catch (e) {
    if (keys.previous === undefined) throw e;
    return decryptWith(keys.previous, objectId, es);
  }
}

import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { EncryptionKeys } from '../db/with-encryption-keys';
import type { Manifest } from './backup-format';

// HKDF's info: the signing key is ENCRYPTION_KEY's, for this use only (decision 030).
const LABEL = 'nodeharbor backup signature';

/** The key that signs this installation's backups: derived from ENCRYPTION_KEY, which reveals nothing of it. */
function signingKey(encryptionKey: string): Buffer {
  return Buffer.from(hkdfSync('sha256', encryptionKey, Buffer.alloc(0), LABEL, 32));
}

/** JSON with every object's keys sorted: the same manifest gives the same text whoever wrote its line. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The manifest's HMAC-SHA256 under the key derived from `encryptionKey`. The manifest holds the
 * content's SHA-256, so the signature covers every row: a backup edited and hashed again no longer
 * verifies, and only a holder of ENCRYPTION_KEY can sign one.
 */
export function signManifest(manifest: Omit<Manifest, 'signature'>, encryptionKey: string): string {
  const { signature: _ignored, ...signed } = manifest as Manifest;
  return createHmac('sha256', signingKey(encryptionKey)).update(canonical(signed)).digest('hex');
}

/** `signed`: by ENCRYPTION_KEY or ENCRYPTION_KEY_PREVIOUS; `unsigned`: it carries no signature; `foreign`: another key's, or edited since. */
export type Signature = 'signed' | 'unsigned' | 'foreign';

export function checkSignature(manifest: Manifest, keys: EncryptionKeys): Signature {
  if (manifest.signature === undefined) return 'unsigned';
  const given = Buffer.from(manifest.signature, 'hex');
  const opens = [keys.current, keys.previous].filter((k) => k !== undefined);
  return opens.some((k) => timingSafeEqual(given, Buffer.from(signManifest(manifest, k), 'hex'))) ? 'signed' : 'foreign';
}

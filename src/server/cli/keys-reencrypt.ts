import { decryptSecret, encryptSecret } from '../auth/mfa-secrets';
import { recordEncryptionKey } from '../encryption-key-check';
import type { Command } from './command';

/**
 * Ends a key rotation: every API key and TOTP secret is encrypted again under ENCRYPTION_KEY, in
 * one transaction, and only then does the database accept that key alone at start. Running it
 * again encrypts everything once more under the same key, which changes nothing readable.
 */
export const keysReencrypt: Command = {
  usage: '',
  summary: 'Encrypt every stored API key and TOTP secret again under ENCRYPTION_KEY (after setting ENCRYPTION_KEY_PREVIOUS to the old key).',
  options: {},
  async run({ db, encryptionKeys }, _values, print) {
    const { apiKeys, secrets } = await db.transaction(async (tx) => {
      const { rows } = await tx.query<{ n: number }>('select private.reencrypt_api_keys()::int as n');
      // The notification channels' targets (migration 0053) are keys of the same kind.
      await tx.query('select private.reencrypt_notification_targets()');
      const factors = await tx.query<{ id: string; secret: string }>(`select id, secret from auth.mfa_factors where coalesce(secret, '') <> '' for update`);
      for (const f of factors.rows) {
        const secret = encryptSecret(encryptionKeys, f.id, decryptSecret(encryptionKeys, f.id, f.secret));
        await tx.query('update auth.mfa_factors set secret = $2 where id = $1', [f.id, secret]);
      }
      await recordEncryptionKey(tx, encryptionKeys.current);
      return { apiKeys: rows[0]!.n, secrets: factors.rowCount };
    });
    print(`Encrypted ${apiKeys} API key(s) and ${secrets} TOTP secret(s) under ENCRYPTION_KEY.`);
    print(
      encryptionKeys.previous === undefined
        ? 'The database accepts only ENCRYPTION_KEY.'
        : 'The database now accepts only ENCRYPTION_KEY: remove ENCRYPTION_KEY_PREVIOUS from every process.',
    );
  },
};

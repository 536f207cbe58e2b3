import type { Database } from './db/database';
import { migrate } from './db/migrate';
import { openDatabase } from './db/open';
import { seed } from './db/seed';
import type { AppDeps } from './deps';
import { createKeys } from './auth/tokens';
import { ConfigError, type Config } from './env';
import { createLogger, type Logger } from './http/logger';
import { resolveSecrets } from './local-secrets';
import { createMailer } from './mail/mailer';
import { createPaymentProvider } from './payments/create-provider';

/**
 * Opens the database, applies migrations and seeds, and builds the shared dependencies.
 * main.ts, cli.ts and the tests all start here.
 */
export async function bootstrap(config: Config, opts: { db?: Database; logger?: Logger } = {}): Promise<AppDeps> {
  const logger = opts.logger ?? createLogger(config.logLevel);
  const secrets = resolveSecrets(config);
  const db = opts.db ?? (await openDatabase(config));
  try {
    await migrate(db, { platform: true });
    await seed(db);
    await keepEncryptionKey(db, secrets.encryptionKey);
  } catch (e) {
    await db.close();
    throw e;
  }
  const keys = await createKeys(secrets.jwtSecret, `${config.publicUrl}/auth/v1`);
  const mailer = createMailer({ db, smtpUrl: config.smtpUrl, from: config.mailFrom, logger });
  const payments = createPaymentProvider(config, db, logger);
  return { config, db, keys, logger, mailer, payments };
}

/**
 * Stores the key that encrypts API keys and TOTP secrets, once. A different key later would make
 * every stored secret unreadable, so the start is refused instead.
 */
async function keepEncryptionKey(db: Database, key: string): Promise<void> {
  const { rows } = await db.query<{ value: string }>(
    `insert into nodeharbor.settings (key, value) values ('encryption_key', $1)
     on conflict (key) do update set key = excluded.key
     returning value`,
    [key],
  );
  if (rows[0]!.value !== key) {
    throw new ConfigError([
      'ENCRYPTION_KEY is not the key this database was set up with: stored API keys could not be read. Set it back to the original key.',
    ]);
  }
}

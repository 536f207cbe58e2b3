import type { Database } from './db/database';
import { migrate } from './db/migrate';
import { openDatabase } from './db/open';
import { seed } from './db/seed';
import type { AppDeps } from './deps';
import { createKeys } from './auth/tokens';
import type { Config } from './env';
import { createLogger, type Logger } from './http/logger';
import { resolveSecrets } from './local-secrets';
import { createMailer } from './mail/mailer';

/**
 * Opens the database, applies migrations and seeds, and builds the shared dependencies.
 * main.ts, worker.ts, cli.ts and the tests all start here.
 */
export async function bootstrap(config: Config, opts: { db?: Database; logger?: Logger } = {}): Promise<AppDeps> {
  const logger = opts.logger ?? createLogger(config.logLevel);
  const secrets = resolveSecrets(config);
  const db = opts.db ?? (await openDatabase(config));
  try {
    await migrate(db, { platform: true });
    await seed(db);
    await db.query(
      `insert into nodeharbor.settings (key, value) values ('encryption_key', $1)
       on conflict (key) do update set value = excluded.value`,
      [secrets.encryptionKey],
    );
  } catch (e) {
    await db.close();
    throw e;
  }
  const keys = await createKeys(secrets.jwtSecret, `${config.publicUrl}/auth/v1`);
  const mailer = createMailer({ db, smtpUrl: config.smtpUrl, from: config.mailFrom, logger });
  return { config, db, keys, logger, mailer };
}

import { storedDocumentPdf } from './billing/document-pdf';
import type { Database } from './db/database';
import { migrate } from './db/migrate';
import type { FolderLock } from './db/data-folder-lock';
import { openDatabase } from './db/open';
import { seed } from './db/seed';
import { defaultClientSlots, shareFairly } from './db/fair-share';
import { logOutages } from './db/outage-log';
import type { AppDeps } from './deps';
import { createKeys } from './auth/tokens';
import type { Config } from './env';
import { withEncryptionKeys, type EncryptionKeys } from './db/with-encryption-keys';
import { checkEncryptionKey } from './encryption-key-check';
import { createLogger, type Logger } from './http/logger';
import { resolveSecrets } from './local-secrets';
import { createMailer } from './mail/mailer';
import { createNowPayments } from './payments/nowpayments';
import { createPaymentProvider } from './payments/create-provider';

/**
 * Opens the database, applies migrations and seeds, and builds the shared dependencies.
 * main.ts, cli.ts and the tests all start here. `prepared`: another process (a cluster's primary)
 * has migrated, seeded and checked the encryption key already. `lock`: the data folder's lock, which
 * the caller (the CLI) took already.
 */
export async function bootstrap(config: Config, opts: { db?: Database; logger?: Logger; prepared?: boolean; lock?: FolderLock } = {}): Promise<AppDeps> {
  const logger = opts.logger ?? createLogger(config.logLevel);
  const secrets = resolveSecrets(config);
  const encryptionKeys = { current: secrets.encryptionKey, previous: config.encryptionKeyPrevious };
  const raw = opts.db ?? (await openDatabase(config, opts.lock));
  const slots = config.databaseClientSlots ?? defaultClientSlots(raw.kind, config.databasePoolSize);
  // Outermost, each caller's share: its refusals are no outage of the database's.
  const db = shareFairly(logOutages(withEncryptionKeys(raw, encryptionKeys), logger), slots);
  try {
    if (!opts.prepared) await prepare(db, encryptionKeys);
  } catch (e) {
    await db.close();
    throw e;
  }
  const keys = await createKeys(secrets.jwtSecret, `${config.publicUrl}/auth/v1`);
  const mailer = createMailer({
    db,
    smtpUrl: config.smtpUrl,
    from: config.mailFrom,
    logger,
    drawDocument: (number) => storedDocumentPdf({ db, logger }, number),
  });
  const payments = createPaymentProvider(config, db, logger);
  const crypto = config.nowPayments ? createNowPayments(config.nowPayments) : undefined;
  return { config, db, keys, encryptionKeys, logger, mailer, payments, ...(crypto ? { crypto } : {}), seller: config.seller };
}

/** Brings the database up to date and checks that ENCRYPTION_KEY is the one it was written with. */
async function prepare(db: Database, encryptionKeys: EncryptionKeys): Promise<void> {
  await migrate(db, { platform: true });
  await seed(db);
  await checkEncryptionKey(db, encryptionKeys);
}

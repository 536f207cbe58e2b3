import type { Database } from './db/database';
import type { EncryptionKeys } from './db/with-encryption-keys';
import type { Config } from './env';
import type { Keys } from './auth/tokens';
import type { Logger } from './http/logger';
import type { Mailer } from './mail/mailer';
import type { CryptoProcessor } from './payments/crypto';
import type { PaymentProvider } from './payments/provider';
import type { Worker } from './jobs/worker';
import type { Lifecycle } from './shutdown';
import type { Seller } from '../shared/billing-documents';

/** Everything a route needs, built once by main.ts and the same way by the tests. */
export type AppDeps = {
  config: Config;
  db: Database;
  keys: Keys;
  /** What encrypts API keys and TOTP secrets; the database holds only a check value of it. */
  encryptionKeys: EncryptionKeys;
  logger: Logger;
  mailer: Mailer;
  /** PayPal, or the built-in test provider when PAYPAL_* is not set. */
  payments: PaymentProvider;
  /** Crypto top-ups beside it, when NOWPAYMENTS_* is set (decision 050). */
  crypto?: CryptoProcessor;
  /** Who issues receipts and credit notes (BILLING_*). */
  seller: Seller;
  /** The built front end; absent in API-only tests. */
  webDir?: string;
  /** Set by npm start: /healthz and /ready answer 503 once it is stopping. */
  lifecycle?: Lifecycle;
  /** The job worker, when npm start runs it in this process: /ready answers 503 if its loop stopped turning. */
  worker?: Pick<Worker, 'alive'>;
  /** Set in one of npm start's HTTP processes on PostgreSQL: /metrics answers for all of them. */
  cluster?: boolean;
};

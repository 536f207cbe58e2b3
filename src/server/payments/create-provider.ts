import type { Database } from '../db/database';
import type { Config } from '../env';
import type { Logger } from '../http/logger';
import { createPayPalProvider } from './paypal';
import type { PaymentProvider } from './provider';
import { createTestProvider } from './test-provider';

/** PayPal when PAYPAL_* is configured, otherwise the built-in test provider. */
export function createPaymentProvider(config: Config, db: Database, logger: Logger): PaymentProvider {
  return config.paypal ? createPayPalProvider(config.paypal, logger) : createTestProvider(db);
}

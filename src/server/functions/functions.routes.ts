import { Hono, type Context } from 'hono';
import { apiTokenMessages } from '../../shared/api-tokens';
import { classifyDbFailure, failureMessage } from '../db/db-failure';
import type { AppDeps } from '../deps';
import { requireApiKey } from '../http/api-key';
import { requestDeps } from '../http/share-by-caller';
import { adminCreateUser } from './admin-create-user';
import { apiToken } from './api-token';
import { billingDocument } from './billing-document';
import { billingStatement } from './billing-statement';
import { contactForm } from './contact-form';
import { contactSettings } from './contact-settings';
import { fail } from './function-response';
import { nodeBootFailed } from './node-boot-failed';
import { nodeBootstrap } from './node-bootstrap';
import { nodeHeartbeat } from './node-heartbeat';
import { nodeKey } from './node-key';
import { nodeLogs } from './node-logs';
import { notificationChannel } from './notification-channel';
import { notificationTest } from './notification-test';
import { purchaseCredits } from './purchase-credits';
import { refundPurchase } from './refund-purchase';
import { sendSqsMessage } from './send-sqs-message';

const functions: Record<string, (deps: AppDeps, c: Context) => Promise<Response>> = {
  'admin-create-user': adminCreateUser,
  'api-token': apiToken,
  'billing-document': billingDocument,
  'billing-statement': billingStatement,
  'contact-form': contactForm,
  'contact-settings': contactSettings,
  'node-boot-failed': nodeBootFailed,
  'node-bootstrap': nodeBootstrap,
  'node-heartbeat': nodeHeartbeat,
  'node-key': nodeKey,
  'node-logs': nodeLogs,
  'notification-channel': notificationChannel,
  'notification-test': notificationTest,
  'purchase-credits': purchaseCredits,
  'refund-purchase': refundPurchase,
  'send-sqs-message': sendSqsMessage,
};

/** /functions/v1/<name>: one file per function. */
export function functionRoutes(deps: AppDeps): Hono {
  const app = new Hono();
  app.use('*', requireApiKey(deps.keys));
  // An API token is no session, not even where a visitor may call: said once, for every function.
  app.use('*', async (c, next) => {
    if (/^bearer\s+nhp_/i.test(c.req.header('authorization') ?? '')) return fail(c, 401, apiTokenMessages.onlyOnApi);
    await next();
  });
  app.post('/:name', (c) => {
    const fn = functions[c.req.param('name')];
    return fn ? fn(requestDeps(c, deps), c) : fail(c, 404, 'Function not found');
  });
  app.all('*', (c) => fail(c, 405, 'Functions are called with POST'));
  // The database's passing failures, in a function's own error shape; they are logged once per
  // incident (db/outage-log.ts). Anything else is a bug, for the app's handler to log.
  app.onError((err, c) => {
    const failure = classifyDbFailure(err);
    if (!failure) throw err;
    c.header('Retry-After', String(failure.retryAfter));
    return fail(c, failure.status, failureMessage(failure), { code: failure.code });
  });
  return app;
}

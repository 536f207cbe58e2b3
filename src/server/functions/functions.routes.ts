import { Hono, type Context } from 'hono';
import type { AppDeps } from '../deps';
import { requireApiKey } from '../http/api-key';
import { contactForm } from './contact-form';
import { contactSettings } from './contact-settings';
import { fail } from './function-response';
import { nodeLogs } from './node-logs';
import { purchaseCredits } from './purchase-credits';
import { sendSqsMessage } from './send-sqs-message';

const functions: Record<string, (deps: AppDeps, c: Context) => Promise<Response>> = {
  'contact-form': contactForm,
  'contact-settings': contactSettings,
  'node-logs': nodeLogs,
  'purchase-credits': purchaseCredits,
  'send-sqs-message': sendSqsMessage,
};

/** /functions/v1/<name>: one file per function. */
export function functionRoutes(deps: AppDeps): Hono {
  const app = new Hono();
  app.use('*', requireApiKey(deps.keys));
  app.post('/:name', (c) => {
    const fn = functions[c.req.param('name')];
    return fn ? fn(deps, c) : fail(c, 404, 'Function not found');
  });
  app.all('*', (c) => fail(c, 405, 'Functions are called with POST'));
  return app;
}

import { Webhook } from 'standardwebhooks';
import { deliveryErrors, NOTIFICATION_VERSION } from '../../../shared/notifications';
import type { OutboundClient } from '../../outbound/outbound-client';
import type { OutboundMessage, SendResult } from '../channel-sender';
import { failed, fromRequestError, isRedirect, retryAfterSeconds } from './results';

/**
 * A message id the signature may cover: Standard Webhooks signs `id.timestamp.body`, and asks that
 * the id hold no full stop.
 */
const MESSAGE_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** The JSON every delivery carries: Standard Webhooks' payload structure (type, timestamp, data) with our version. */
export function webhookBody(message: OutboundMessage): string {
  return JSON.stringify({
    type: message.event,
    version: NOTIFICATION_VERSION,
    timestamp: message.occurredAt.toISOString(),
    data: { ...message.data, title: message.title, text: message.text, ...(message.url ? { url: message.url } : {}) },
  });
}

/**
 * One signed delivery (Standard Webhooks 1.0): `webhook-id` is the message's id, the same on every
 * redelivery; `webhook-timestamp` is this attempt's time; `webhook-signature` is the library's
 * `v1,<HMAC-SHA256>` over id.timestamp.body with the endpoint's `whsec_` secret. Any 2xx is
 * delivered; 410 Gone and other 4xx (but 408 and 429) and redirects are final; 5xx, 408, 429 and
 * no answer are retried, after Retry-After when it is given.
 */
export async function sendWebhook(client: OutboundClient, target: { url: string; secret: string }, message: OutboundMessage): Promise<SendResult> {
  if (!MESSAGE_ID.test(message.id)) throw new Error(`message id ${JSON.stringify(message.id)} cannot be signed`);
  let signer: Webhook;
  try {
    signer = new Webhook(target.secret);
  } catch {
    throw new Error('the webhook secret is not a whsec_ secret');
  }
  const body = webhookBody(message);
  const now = new Date();
  let res;
  try {
    res = await client.request(target.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': message.id,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': signer.sign(message.id, now, body),
      },
      body,
    });
  } catch (e) {
    return fromRequestError(e);
  }
  const { status } = res;
  if (status >= 200 && status < 300) return { ok: true, status };
  if (isRedirect(status)) return failed(deliveryErrors.redirect, status, false);
  if (status === 410) return failed(deliveryErrors.webhookGone, status, false);
  if (status === 429) return failed(deliveryErrors.rateLimited, status, true, retryAfterSeconds(undefined, res.headers));
  const retry = status >= 500 || status === 408;
  return failed(deliveryErrors.status(status), status, retry, retry ? retryAfterSeconds(undefined, res.headers) : undefined);
}

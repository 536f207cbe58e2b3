import { isUuid } from '../../shared/validation';
import type { PayPalConfig } from '../env';
import { parseJsonBody } from '../http/json-body';
import type { Logger } from '../http/logger';
import { centsToDollars, PaymentProviderError, type CaptureResult, type Money, type OrderState, type PaymentProvider, type WebhookEvent } from './provider';

type Link = { href: string; rel: string };
type Capture = { id?: string; status?: string; amount?: unknown };
type Order = {
  id: string;
  status?: string;
  links?: Link[];
  purchase_units?: { payments?: { captures?: Capture[] } }[];
};
type PayPalErrorBody = { name?: string; message?: string; debug_id?: string; details?: { issue?: string }[] };

/** A token is renewed this long before PayPal says it expires. */
const TOKEN_MARGIN_MS = 60_000;

const DECLINED_ISSUES = new Set(['INSTRUMENT_DECLINED', 'PAYER_ACTION_REQUIRED', 'TRANSACTION_REFUSED', 'PAYER_CANNOT_PAY']);

/** Events that end a purchase unpaid; REVERSED is an approval left uncaptured until it lapsed. */
const CLOSING_EVENTS: Record<string, 'rejected' | 'expired'> = {
  'PAYMENT.CAPTURE.DENIED': 'rejected',
  'PAYMENT.CAPTURE.DECLINED': 'rejected',
  'CHECKOUT.ORDER.VOIDED': 'rejected',
  'CHECKOUT.PAYMENT-APPROVAL.REVERSED': 'expired',
};

/** PayPal Orders v2 over its REST API (intent CAPTURE), with OAuth client credentials. */
export function createPayPalProvider(config: PayPalConfig, logger: Logger): PaymentProvider {
  let token: { value: string; expiresAt: number } | undefined;
  let tokenRequest: Promise<string> | undefined;

  async function call(method: string, path: string, init: { headers?: Record<string, string>; body?: string } = {}) {
    let res: Response;
    try {
      res = await fetch(`${config.apiUrl}${path}`, {
        method,
        headers: init.headers,
        body: init.body,
        signal: AbortSignal.timeout(config.timeoutMs),
      });
    } catch (e) {
      const timedOut = e instanceof Error && e.name === 'TimeoutError';
      throw new PaymentProviderError(
        timedOut ? `PayPal did not answer ${method} ${route(path)} within ${config.timeoutMs} ms` : `PayPal could not be reached (${method} ${route(path)})`,
        true,
      );
    }
    let body: unknown;
    try {
      const text = await res.text();
      body = text ? (JSON.parse(text) as unknown) : {};
    } catch {
      throw new PaymentProviderError(`PayPal answered ${method} ${route(path)} with ${res.status} and a body that is not JSON`, res.status >= 500);
    }
    return { status: res.status, body };
  }

  async function accessToken(): Promise<string> {
    if (token && Date.now() < token.expiresAt) return token.value;
    // Concurrent calls share one token request.
    tokenRequest ??= (async () => {
      try {
        const basic = Buffer.from(`${config.clientId}:${config.clientSecret}`).toString('base64');
        const r = await call('POST', '/v1/oauth2/token', {
          headers: { Authorization: `Basic ${basic}`, 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
          body: 'grant_type=client_credentials',
        });
        const b = r.body as { access_token?: string; expires_in?: number };
        if (r.status === 401 || r.status === 403) {
          throw new PaymentProviderError('PayPal refused the client credentials: check PAYPAL_CLIENT_ID, PAYPAL_CLIENT_SECRET and PAYPAL_MODE', false);
        }
        if (r.status !== 200 || typeof b.access_token !== 'string') throw failure('POST', '/v1/oauth2/token', r.status, r.body);
        token = { value: b.access_token, expiresAt: Date.now() + Math.max(0, (b.expires_in ?? 0) * 1000 - TOKEN_MARGIN_MS) };
        return token.value;
      } finally {
        tokenRequest = undefined;
      }
    })();
    return tokenRequest;
  }

  /** A call with the bearer token; a token PayPal no longer accepts is renewed once. */
  async function api(method: string, path: string, opts: { body?: unknown; requestId?: string } = {}) {
    for (let attempt = 0; ; attempt++) {
      // Prefer: PayPal answers a POST with the id, status and links alone unless asked for the whole
      // resource (return=minimal is its documented default), and a capture's or refund's amount is
      // what the booking compares with the order.
      const headers: Record<string, string> = {
        Authorization: `Bearer ${await accessToken()}`,
        Accept: 'application/json',
        Prefer: 'return=representation',
      };
      if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
      if (opts.requestId) headers['PayPal-Request-Id'] = opts.requestId;
      const r = await call(method, path, {
        headers,
        body: typeof opts.body === 'string' ? opts.body : opts.body === undefined ? undefined : JSON.stringify(opts.body),
      });
      if (r.status === 401 && attempt === 0) {
        token = undefined;
        continue;
      }
      return r;
    }
  }

  function failure(method: string, path: string, status: number, body: unknown): PaymentProviderError {
    const b = body as PayPalErrorBody;
    const issue = b.details?.[0]?.issue ?? b.name ?? 'unknown error';
    logger.warn('paypal call failed', { method, path: route(path), status, issue, debug_id: b.debug_id });
    return new PaymentProviderError(`PayPal answered ${method} ${route(path)} with ${status} (${issue})`, status >= 500 || status === 429);
  }

  async function fetchOrder(orderId: string): Promise<Order | undefined> {
    const path = `/v2/checkout/orders/${encodeURIComponent(orderId)}`;
    const r = await api('GET', path);
    if (r.status === 404) return undefined;
    if (r.status !== 200) throw failure('GET', path, r.status, r.body);
    return r.body as Order;
  }

  return {
    name: 'paypal',

    async createOrder(amountCents, purchaseId, returnUrl, cancelUrl) {
      const path = '/v2/checkout/orders';
      const r = await api('POST', path, {
        // The same purchase id makes PayPal answer the same order if this request is retried.
        requestId: `order-${purchaseId}`,
        body: {
          intent: 'CAPTURE',
          purchase_units: [
            {
              reference_id: purchaseId,
              custom_id: purchaseId,
              invoice_id: purchaseId,
              description: 'NodeHarbor prepaid credit',
              amount: { currency_code: 'USD', value: centsToDollars(amountCents) },
            },
          ],
          payment_source: {
            paypal: {
              experience_context: {
                brand_name: 'NodeHarbor',
                shipping_preference: 'NO_SHIPPING',
                user_action: 'PAY_NOW',
                return_url: returnUrl,
                cancel_url: cancelUrl,
              },
            },
          },
        },
      });
      if (r.status !== 200 && r.status !== 201) throw failure('POST', path, r.status, r.body);
      const order = r.body as Order;
      // 'payer-action' with payment_source.paypal, 'approve' with the older application_context.
      const link = order.links?.find((l) => l.rel === 'payer-action' || l.rel === 'approve');
      if (typeof order.id !== 'string' || !link) throw new PaymentProviderError('PayPal created an order without an approval link', false);
      return { orderId: order.id, approvalUrl: link.href };
    },

    async getOrder(orderId) {
      const order = await fetchOrder(orderId);
      return { id: orderId, state: order ? orderState(order.status) : 'not_found' };
    },

    async captureOrder(orderId) {
      const path = `/v2/checkout/orders/${encodeURIComponent(orderId)}/capture`;
      const r = await api('POST', path, { requestId: `capture-${orderId}`, body: '{}' });
      if (r.status === 200 || r.status === 201) return captureOf(r.body as Order);
      const issue = (r.body as PayPalErrorBody).details?.[0]?.issue;
      if (r.status === 422 && issue === 'ORDER_ALREADY_CAPTURED') {
        // Captured by an earlier call (another process, a webhook): read what was captured.
        const order = await fetchOrder(orderId);
        if (!order) throw new PaymentProviderError(`PayPal says order ${orderId} is captured but cannot find it`, true);
        return captureOf(order);
      }
      if (r.status === 422 && issue === 'ORDER_NOT_APPROVED') return { status: 'not_approved' };
      if (r.status === 422 && issue && DECLINED_ISSUES.has(issue)) {
        logger.info('paypal capture declined', { order_id: orderId, issue });
        return { status: 'declined', reason: issue };
      }
      throw failure('POST', path, r.status, r.body);
    },

    async refund({ orderId, captureId, cents, refundId }) {
      let capture = captureId;
      if (!capture) {
        const order = await fetchOrder(orderId);
        capture = order?.purchase_units?.[0]?.payments?.captures?.[0]?.id ?? null;
        if (!capture) return { status: 'refused', reason: `PayPal has no capture for order ${orderId}` };
      }
      const path = `/v2/payments/captures/${encodeURIComponent(capture)}/refund`;
      const r = await api('POST', path, {
        // The same refund id makes PayPal answer the same refund if this request is retried.
        requestId: `refund-${refundId}`,
        body: { amount: { currency_code: 'USD', value: centsToDollars(cents) }, custom_id: refundId },
      });
      if (r.status === 200 || r.status === 201) {
        const b = r.body as { id?: unknown; status?: unknown; amount?: unknown };
        if (typeof b.id !== 'string') throw new PaymentProviderError('PayPal answered a refund without its id', false);
        // What PayPal refunded, not what we asked for: the booking compares the two.
        const refunded = moneyOf(b.amount);
        // Without its amount the refund is booked by its webhook, which carries it: nothing says it differs.
        if (b.status === 'COMPLETED' && refunded.currency !== null && refunded.value !== null) {
          return { status: 'completed', providerRefundId: b.id, refunded, captureId: capture };
        }
        if (b.status === 'COMPLETED' || b.status === 'PENDING') return { status: 'pending', providerRefundId: b.id, captureId: capture };
        return { status: 'refused', reason: `PayPal's refund is ${typeof b.status === 'string' ? b.status : 'in an unknown state'}` };
      }
      const issue = (r.body as PayPalErrorBody).details?.[0]?.issue;
      if (r.status === 422 && issue) {
        logger.info('paypal refund refused', { order_id: orderId, issue });
        return { status: 'refused', reason: `PayPal refused the refund (${issue})` };
      }
      throw failure('POST', path, r.status, r.body);
    },

    async verifyWebhook(headers, rawBody) {
      const h = (name: string) => headers[name] ?? '';
      const fields = {
        auth_algo: h('paypal-auth-algo'),
        cert_url: h('paypal-cert-url'),
        transmission_id: h('paypal-transmission-id'),
        transmission_sig: h('paypal-transmission-sig'),
        transmission_time: h('paypal-transmission-time'),
        webhook_id: config.webhookId,
      };
      if (Object.values(fields).some((v) => v === '')) return null;
      const parsed = parseJsonBody(rawBody);
      if (!parsed.ok) return null;
      const event = parsed.value;
      if (typeof event !== 'object' || event === null || Array.isArray(event)) return null;
      // The event goes back byte for byte as it came: re-serialising it could change what was signed.
      const body = `${JSON.stringify(fields).slice(0, -1)},"webhook_event":${rawBody}}`;
      const path = '/v1/notifications/verify-webhook-signature';
      const r = await api('POST', path, { body });
      if (r.status !== 200) throw failure('POST', path, r.status, r.body);
      if ((r.body as { verification_status?: string }).verification_status !== 'SUCCESS') return null;
      return webhookEvent(event as Record<string, unknown>);
    },
  };
}

/** The path without ids, for messages and logs. */
function route(path: string): string {
  return path.replace(/\/orders\/[^/]+/, '/orders/{id}').replace(/\/captures\/[^/]+/, '/captures/{id}');
}

function orderState(status: string | undefined): OrderState {
  switch (status) {
    case 'APPROVED':
      return 'approved';
    case 'COMPLETED':
      return 'completed';
    case 'VOIDED':
      return 'voided';
    default:
      // CREATED, SAVED, PAYER_ACTION_REQUIRED: the buyer has not approved yet.
      return 'awaiting_approval';
  }
}

function captureOf(order: Order): CaptureResult {
  const capture = order.purchase_units?.[0]?.payments?.captures?.[0];
  switch (capture?.status) {
    case 'COMPLETED': {
      const captured = moneyOf(capture.amount);
      // An answer without the amount says nothing of it: asked again, never taken for a mismatch.
      if (captured.currency === null || captured.value === null)
        throw new PaymentProviderError(`PayPal answered order ${order.id}'s capture without its amount`, true);
      return { status: 'completed', captured, captureId: capture.id ?? null };
    }
    case 'PENDING':
      return { status: 'pending' };
    case 'DECLINED':
    case 'FAILED':
      return { status: 'declined', reason: capture.status };
    default:
      if (order.status === 'APPROVED' || order.status === 'CREATED' || order.status === 'PAYER_ACTION_REQUIRED') return { status: 'not_approved' };
      throw new PaymentProviderError(`PayPal's order ${order.id} is ${order.status ?? 'in an unknown state'} without a capture`, false);
  }
}

/** An event's resource: an order, a capture or a refund, as far as we read them. */
type Resource = {
  id?: unknown;
  status?: unknown;
  custom_id?: unknown;
  amount?: unknown;
  links?: { rel?: unknown; href?: unknown }[];
  supplementary_data?: { related_ids?: { order_id?: unknown; capture_id?: unknown } };
};

/** Our reading of the events we subscribe to; everything else is acknowledged and ignored. */
function webhookEvent(event: Record<string, unknown>): WebhookEvent {
  const type = typeof event.event_type === 'string' ? event.event_type : '';
  const resource = (event.resource ?? {}) as Resource;
  if (type === 'PAYMENT.CAPTURE.REFUNDED' || type === 'PAYMENT.CAPTURE.REVERSED') return refundEvent(type, resource);
  // Order events carry the order; capture events name it in their related ids.
  const orderId = type.startsWith('CHECKOUT.') ? resource.id : resource.supplementary_data?.related_ids?.order_id;
  if (typeof orderId !== 'string' || orderId === '') return { kind: 'ignored', type };
  // Capturing is idempotent, so a completed order is settled the same way as an approved one.
  if (type === 'CHECKOUT.ORDER.APPROVED' || type === 'CHECKOUT.ORDER.COMPLETED') return { kind: 'approved', orderId };
  if (type === 'PAYMENT.CAPTURE.COMPLETED') {
    return { kind: 'captured', orderId, captured: moneyOf(resource.amount), captureId: typeof resource.id === 'string' ? resource.id : null };
  }
  const closing = CLOSING_EVENTS[type];
  if (closing) return { kind: 'closed', orderId, status: closing };
  return { kind: 'ignored', type };
}

const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);

/** PayPal's money object (`currency_code`, `value`), as written; a missing field is null and matches no order. */
function moneyOf(amount: unknown): Money {
  const a = (typeof amount === 'object' && amount !== null ? amount : {}) as { currency_code?: unknown; value?: unknown };
  return { currency: text(a.currency_code), value: text(a.value) };
}

/**
 * A refund resource: its capture is the "up" link (PayPal adds related ids only sometimes), and a
 * refund we asked for carries our refund id as custom_id. Only a completed one moves money.
 */
function refundEvent(type: string, resource: Resource): WebhookEvent {
  const refundId = text(resource.id);
  const up = resource.links?.find((l) => l.rel === 'up');
  const captureId =
    text(resource.supplementary_data?.related_ids?.capture_id) ?? text(typeof up?.href === 'string' ? /\/captures\/([^/?]+)/.exec(up.href)?.[1] : null);
  const orderId = text(resource.supplementary_data?.related_ids?.order_id);
  if (!refundId || (!captureId && !orderId)) return { kind: 'ignored', type };
  if (resource.status !== undefined && resource.status !== 'COMPLETED') return { kind: 'ignored', type };
  const ours = text(resource.custom_id);
  return {
    kind: 'refunded',
    captureId,
    orderId,
    refundId,
    amount: moneyOf(resource.amount),
    reversal: type === 'PAYMENT.CAPTURE.REVERSED',
    ourRefundId: ours && isUuid(ours) ? ours : null,
  };
}

import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A local stand-in for PayPal's REST API: the endpoints NodeHarbor calls, answering with PayPal's
 * JSON shapes (Orders v2, OAuth, webhook verification), and switches for its failures.
 */
export type StandInOrder = {
  id: string;
  status: 'PAYER_ACTION_REQUIRED' | 'APPROVED' | 'COMPLETED' | 'VOIDED';
  value: string;
  purchaseId: string;
  returnUrl: string;
  cancelUrl: string;
  captureId?: string;
  /** What the capture took, when it is not the order's own amount. */
  captured?: PayPalMoney;
};

/** PayPal's money object: an ISO-4217 currency and a value written in its decimals ("9.00", or "9" for yen). */
export type PayPalMoney = { currency_code: string; value: string };

/** A refund of a capture, made through the API or in PayPal's dashboard, or a reversal (chargeback). */
export type StandInRefund = {
  id: string;
  captureId: string;
  orderId: string;
  currency: string;
  value: string;
  customId: string | null;
  status: 'COMPLETED' | 'PENDING';
};

/** `refused` is a lasting 422 that is not a decline (the merchant account is restricted). */
export type Failure = 'none' | 'declined' | 'refused' | '5xx' | 'timeout';

export type PayPalStandIn = {
  url: string;
  clientId: string;
  clientSecret: string;
  webhookId: string;
  orders: Map<string, StandInOrder>;
  /** What the next calls do: capture only, or every order call (create, get, capture). */
  refunds: Map<string, StandInRefund>;
  fail: {
    capture: Failure;
    orders: Exclude<Failure, 'declined' | 'refused'>;
    webhookSignature: 'valid' | 'invalid';
    /**
     * `pending`: PayPal accepts the refund and finishes it later (its webhook tells). `lost`: PayPal
     * makes the refund, but its answer never arrives (a 503 here).
     */
    refund: Exclude<Failure, 'declined'> | 'pending' | 'lost';
  };
  calls: { token: number; create: number; get: number; capture: number; captured: number; verify: number; refund: number };
  /**
   * What PayPal's next captures or API refunds take in place of what was asked: another currency or
   * another amount, as a misbehaving or compromised PayPal account would answer.
   */
  answer: {
    capture: PayPalMoney | null;
    refund: PayPalMoney | null;
    /** Answers a POST with id, status and links alone, as if Prefer were not sent. */ minimal?: boolean;
  };
  /** The buyer approves on PayPal; answers the return URL PayPal then sends the browser to. */
  approve(orderId: string): string;
  /** The buyer cancels on PayPal; answers the cancel URL. */
  cancel(orderId: string): string;
  /** PayPal forgets every access token it issued, as when one expires early. */
  revokeTokens(): void;
  /** A webhook delivery as PayPal sends it, signed (or not, with `forged`). */
  delivery(eventType: string, orderId: string, opts?: { forged?: boolean }): { headers: Record<string, string>; body: string };
  /** PayPal takes money back from a captured order on its own: a refund in its dashboard, or a reversal. */
  refundElsewhere(orderId: string, value: string, currency?: string): StandInRefund;
  /** PAYMENT.CAPTURE.REFUNDED or .REVERSED for a refund, signed as PayPal sends it. */
  refundDelivery(eventType: 'PAYMENT.CAPTURE.REFUNDED' | 'PAYMENT.CAPTURE.REVERSED', refund: StandInRefund): { headers: Record<string, string>; body: string };
  close(): Promise<void>;
};

const CLIENT_ID = 'stand-in-client-id';
const CLIENT_SECRET = 'stand-in-client-secret';
const WEBHOOK_ID = 'WH-STANDIN-0001';

function paypalId(): string {
  return randomBytes(9).toString('hex').toUpperCase().slice(0, 17);
}

function sign(transmissionId: string, event: unknown): string {
  return createHash('sha256')
    .update(`${transmissionId}|${WEBHOOK_ID}|${JSON.stringify(event)}`)
    .digest('base64');
}

function issueError(status: number, name: string, issue: string, description: string, message: string) {
  return {
    status,
    body: {
      name,
      details: [{ issue, description }],
      message,
      debug_id: randomBytes(6).toString('hex'),
      links: [{ href: `https://developer.paypal.com/docs/api/orders/v2/#error-${issue}`, rel: 'information_link', method: 'GET' }],
    },
  };
}

const NOT_FOUND = (id: string) => ({
  status: 404,
  body: {
    name: 'RESOURCE_NOT_FOUND',
    details: [
      {
        field: 'order_id',
        value: id,
        location: 'path',
        issue: 'INVALID_RESOURCE_ID',
        description: 'Specified resource ID does not exist. Please check the resource ID and try again.',
      },
    ],
    message: 'The specified resource does not exist.',
    debug_id: randomBytes(6).toString('hex'),
  },
});

const UNPROCESSABLE = 'The requested action could not be performed, semantically incorrect, or failed business validation.';

/**
 * A capture's seller_receivable_breakdown: the gross in the capture's own currency, PayPal's fee
 * (3.49% + 0.49, its US rate) and what the payee nets. NodeHarbor reads none of it (decision 031).
 */
function receivable(gross: PayPalMoney) {
  const decimals = gross.value.includes('.') ? 2 : 0;
  const unit = 10 ** decimals;
  const total = Math.round(Number(gross.value) * unit);
  const fee = Math.round(total * 0.0349 + 0.49 * unit);
  const money = (n: number) => ({ currency_code: gross.currency_code, value: (n / unit).toFixed(decimals) });
  return { gross_amount: gross, paypal_fee: money(fee), net_amount: money(total - fee) };
}

export async function startPayPalStandIn(): Promise<PayPalStandIn> {
  const orders = new Map<string, StandInOrder>();
  const byRequestId = new Map<string, string>();
  const tokens = new Set<string>();
  const sockets = new Set<Socket>();
  let base = '';

  /**
   * A POST's answer as PayPal gives it: the whole resource only with `Prefer: return=representation`,
   * otherwise (`return=minimal`, its default) the id, status and links alone.
   */
  const preferred = <T extends { id: string; status: string; links: unknown[] }>(req: IncomingMessage, full: T) =>
    !s.answer.minimal && String(req.headers.prefer ?? '').includes('return=representation') ? full : { id: full.id, status: full.status, links: full.links };
  const orderJson = (o: StandInOrder) => ({
    id: o.id,
    intent: 'CAPTURE',
    status: o.status,
    purchase_units: [
      {
        reference_id: o.purchaseId,
        amount: { currency_code: 'USD', value: o.value },
        custom_id: o.purchaseId,
        invoice_id: o.purchaseId,
        ...(o.captureId ? { payments: { captures: [captureJson(o)] } } : {}),
      },
    ],
    create_time: new Date().toISOString(),
    links: [{ href: `${base}/v2/checkout/orders/${o.id}`, rel: 'self', method: 'GET' }],
  });
  const captureJson = (o: StandInOrder) => ({
    id: o.captureId,
    status: 'COMPLETED',
    amount: o.captured ?? { currency_code: 'USD', value: o.value },
    final_capture: true,
    seller_receivable_breakdown: receivable(o.captured ?? { currency_code: 'USD', value: o.value }),
    custom_id: o.purchaseId,
    invoice_id: o.purchaseId,
    supplementary_data: { related_ids: { order_id: o.id } },
    create_time: new Date().toISOString(),
    update_time: new Date().toISOString(),
  });

  // A refund resource as PayPal's webhooks carry it: the capture is its "up" link.
  const refundJson = (r: StandInRefund) => ({
    id: r.id,
    status: r.status,
    amount: { currency_code: r.currency, value: r.value },
    ...(r.customId ? { custom_id: r.customId } : {}),
    seller_payable_breakdown: { gross_amount: { currency_code: r.currency, value: r.value } },
    create_time: new Date().toISOString(),
    update_time: new Date().toISOString(),
    links: [
      { href: `${base}/v2/payments/refunds/${r.id}`, rel: 'self', method: 'GET' },
      { href: `${base}/v2/payments/captures/${r.captureId}`, rel: 'up', method: 'GET' },
    ],
  });
  const signed = (eventType: string, resourceType: string, resource: unknown, forged = false) => {
    const event = {
      id: `WH-${paypalId()}`,
      event_version: '1.0',
      create_time: new Date().toISOString(),
      resource_type: resourceType,
      resource_version: '2.0',
      event_type: eventType,
      summary: `Stand-in ${eventType}`,
      resource,
      links: [],
    };
    const transmissionId = randomBytes(8).toString('hex');
    return {
      body: JSON.stringify(event),
      headers: {
        'content-type': 'application/json',
        'paypal-auth-algo': 'SHA256withRSA',
        'paypal-cert-url': 'https://api-m.sandbox.paypal.com/v1/notifications/certs/CERT-stand-in',
        'paypal-transmission-id': transmissionId,
        'paypal-transmission-sig': forged ? 'forged-signature' : sign(transmissionId, event),
        'paypal-transmission-time': new Date().toISOString(),
      },
    };
  };
  const refunds = new Map<string, StandInRefund>();
  const refunded = (captureId: string) =>
    [...refunds.values()].filter((r) => r.captureId === captureId).reduce((sum, r) => sum + Math.round(Number(r.value) * 100), 0);

  const s: PayPalStandIn = {
    url: '',
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    webhookId: WEBHOOK_ID,
    orders,
    refunds,
    fail: { capture: 'none', orders: 'none', webhookSignature: 'valid', refund: 'none' },
    calls: { token: 0, create: 0, get: 0, capture: 0, captured: 0, verify: 0, refund: 0 },
    answer: { capture: null, refund: null },
    approve(orderId) {
      const o = orders.get(orderId)!;
      if (o.status === 'PAYER_ACTION_REQUIRED') o.status = 'APPROVED';
      const u = new URL(o.returnUrl);
      u.searchParams.set('token', o.id);
      u.searchParams.set('PayerID', 'STANDINPAYER1');
      return u.toString();
    },
    cancel(orderId) {
      const u = new URL(orders.get(orderId)!.cancelUrl);
      u.searchParams.set('token', orderId);
      return u.toString();
    },
    revokeTokens() {
      tokens.clear();
    },
    delivery(eventType, orderId, opts = {}) {
      const o = orders.get(orderId)!;
      const checkout = eventType.startsWith('CHECKOUT.');
      const resource = checkout ? orderJson(o) : { ...captureJson(o), id: o.captureId ?? paypalId() };
      return signed(eventType, checkout ? 'checkout-order' : 'capture', resource, opts.forged);
    },
    refundElsewhere(orderId, value, currency = 'USD') {
      const o = orders.get(orderId)!;
      const r: StandInRefund = { id: paypalId(), captureId: o.captureId!, orderId, currency, value, customId: null, status: 'COMPLETED' };
      refunds.set(r.id, r);
      return r;
    },
    refundDelivery(eventType, refund) {
      return signed(eventType, 'refund', refundJson(refund));
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };

  async function handle(req: IncomingMessage, body: string): Promise<{ status: number; body: unknown } | 'hang'> {
    const url = new URL(req.url ?? '/', base);
    const path = url.pathname;
    if (req.method === 'POST' && path === '/v1/oauth2/token') {
      s.calls.token++;
      const expected = `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`;
      if (req.headers.authorization !== expected || body !== 'grant_type=client_credentials') {
        return { status: 401, body: { error: 'invalid_client', error_description: 'Client Authentication failed' } };
      }
      const token = `A21AA${randomBytes(24).toString('hex')}`;
      tokens.add(token);
      return {
        status: 200,
        body: {
          scope: 'https://uri.paypal.com/services/payments/payment',
          access_token: token,
          token_type: 'Bearer',
          app_id: 'APP-STANDIN',
          expires_in: 32400,
          nonce: randomBytes(8).toString('hex'),
        },
      };
    }
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!bearer || !tokens.has(bearer)) {
      return { status: 401, body: { error: 'invalid_token', error_description: 'Token signature verification failed' } };
    }
    if (req.method === 'POST' && path === '/v1/notifications/verify-webhook-signature') {
      s.calls.verify++;
      const v = JSON.parse(body) as { transmission_id: string; transmission_sig: string; webhook_id: string; webhook_event: unknown };
      const ok = s.fail.webhookSignature === 'valid' && v.webhook_id === WEBHOOK_ID && v.transmission_sig === sign(v.transmission_id, v.webhook_event);
      return { status: 200, body: { verification_status: ok ? 'SUCCESS' : 'FAILURE' } };
    }
    if (path.startsWith('/v2/checkout/orders')) {
      if (s.fail.orders === 'timeout') return 'hang';
      if (s.fail.orders === '5xx') return { status: 503, body: { name: 'SERVICE_UNAVAILABLE', message: 'Service Unavailable.', debug_id: 'standin5xx' } };
    }
    if (req.method === 'POST' && path === '/v2/checkout/orders') {
      s.calls.create++;
      const requestId = req.headers['paypal-request-id'] as string | undefined;
      const again = requestId ? byRequestId.get(requestId) : undefined;
      const o: StandInOrder = again
        ? orders.get(again)!
        : (() => {
            const b = JSON.parse(body) as {
              intent: string;
              purchase_units: { custom_id: string; amount: { currency_code: string; value: string } }[];
              payment_source: { paypal: { experience_context: { return_url: string; cancel_url: string } } };
            };
            if (b.intent !== 'CAPTURE' || b.purchase_units[0]!.amount.currency_code !== 'USD') throw new Error('stand-in: unexpected order');
            const ctx = b.payment_source.paypal.experience_context;
            const created: StandInOrder = {
              id: paypalId(),
              status: 'PAYER_ACTION_REQUIRED',
              value: b.purchase_units[0]!.amount.value,
              purchaseId: b.purchase_units[0]!.custom_id,
              returnUrl: ctx.return_url,
              cancelUrl: ctx.cancel_url,
            };
            orders.set(created.id, created);
            if (requestId) byRequestId.set(requestId, created.id);
            return created;
          })();
      return {
        status: 200,
        body: {
          id: o.id,
          status: o.status,
          payment_source: { paypal: {} },
          links: [
            { href: `${base}/v2/checkout/orders/${o.id}`, rel: 'self', method: 'GET' },
            { href: `https://www.sandbox.paypal.com/checkoutnow?token=${o.id}`, rel: 'payer-action', method: 'GET' },
          ],
        },
      };
    }
    const m = /^\/v2\/checkout\/orders\/([^/]+)(\/capture)?$/.exec(path);
    if (m) {
      const o = orders.get(decodeURIComponent(m[1]!));
      if (req.method === 'GET' && !m[2]) {
        s.calls.get++;
        return o ? { status: 200, body: orderJson(o) } : NOT_FOUND(m[1]!);
      }
      if (req.method === 'POST' && m[2]) {
        s.calls.capture++;
        if (s.fail.capture === 'timeout') return 'hang';
        if (s.fail.capture === '5xx')
          return { status: 500, body: { name: 'INTERNAL_SERVER_ERROR', message: 'An internal server error occurred.', debug_id: 'standin500' } };
        if (!o) return NOT_FOUND(m[1]!);
        if (o.status === 'COMPLETED') {
          return issueError(
            422,
            'UNPROCESSABLE_ENTITY',
            'ORDER_ALREADY_CAPTURED',
            "Order already captured.If 'intent=CAPTURE' only one capture per order is allowed.",
            UNPROCESSABLE,
          );
        }
        if (o.status !== 'APPROVED') {
          return issueError(422, 'UNPROCESSABLE_ENTITY', 'ORDER_NOT_APPROVED', 'Payer has not yet approved the Order for payment.', UNPROCESSABLE);
        }
        if (s.fail.capture === 'declined') {
          return issueError(
            422,
            'UNPROCESSABLE_ENTITY',
            'INSTRUMENT_DECLINED',
            "The instrument presented  was either declined by the processor or bank, or it can't be used for this payment.",
            UNPROCESSABLE,
          );
        }
        if (s.fail.capture === 'refused') {
          return issueError(422, 'UNPROCESSABLE_ENTITY', 'PAYEE_ACCOUNT_RESTRICTED', 'The merchant account is restricted.', UNPROCESSABLE);
        }
        o.status = 'COMPLETED';
        o.captureId = paypalId();
        if (s.answer.capture) o.captured = s.answer.capture;
        s.calls.captured++;
        return { status: 201, body: preferred(req, { ...orderJson(o), payer: { payer_id: 'STANDINPAYER1' } }) };
      }
    }
    const refund = /^\/v2\/payments\/captures\/([^/]+)\/refund$/.exec(path);
    if (refund && req.method === 'POST') {
      s.calls.refund++;
      if (s.fail.refund === 'timeout') return 'hang';
      if (s.fail.refund === '5xx') return { status: 503, body: { name: 'SERVICE_UNAVAILABLE', message: 'Service Unavailable.', debug_id: 'standin5xx' } };
      const captureId = decodeURIComponent(refund[1]!);
      const o = [...orders.values()].find((x) => x.captureId === captureId);
      if (!o) return NOT_FOUND(captureId);
      const requestId = req.headers['paypal-request-id'] as string | undefined;
      const again = requestId ? byRequestId.get(requestId) : undefined;
      if (again) return { status: 200, body: preferred(req, refundJson(refunds.get(again)!)) };
      if (s.fail.refund === 'refused') {
        return issueError(422, 'UNPROCESSABLE_ENTITY', 'PAYEE_ACCOUNT_RESTRICTED', 'The merchant account is restricted.', UNPROCESSABLE);
      }
      const b = JSON.parse(body) as { amount?: { value: string; currency_code: string }; custom_id?: string };
      const cents = Math.round(Number(b.amount?.value ?? o.value) * 100);
      const captured = Math.round(Number(o.value) * 100);
      if (refunded(captureId) >= captured) {
        return issueError(422, 'UNPROCESSABLE_ENTITY', 'CAPTURE_FULLY_REFUNDED', 'The capture has already been fully refunded', UNPROCESSABLE);
      }
      if (refunded(captureId) + cents > captured) {
        return issueError(
          422,
          'UNPROCESSABLE_ENTITY',
          'REFUND_AMOUNT_EXCEEDED',
          'The refund amount must be less than or equal to the capture amount that has not yet been refunded.',
          UNPROCESSABLE,
        );
      }
      const r: StandInRefund = {
        id: paypalId(),
        captureId,
        orderId: o.id,
        currency: s.answer.refund?.currency_code ?? b.amount?.currency_code ?? 'USD',
        value: s.answer.refund?.value ?? (cents / 100).toFixed(2),
        customId: b.custom_id ?? null,
        status: s.fail.refund === 'pending' ? 'PENDING' : 'COMPLETED',
      };
      refunds.set(r.id, r);
      if (requestId) byRequestId.set(requestId, r.id);
      if (s.fail.refund === 'lost') return { status: 503, body: { name: 'SERVICE_UNAVAILABLE', message: 'Service Unavailable.', debug_id: 'standinlost' } };
      return { status: 201, body: preferred(req, refundJson(r)) };
    }
    return { status: 404, body: { name: 'RESOURCE_NOT_FOUND', message: 'The specified resource does not exist.' } };
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      handle(req, body).then(
        (r) => {
          if (r === 'hang') return; // PayPal never answers: the caller's timeout must fire.
          res.writeHead(r.status, { 'Content-Type': 'application/json', 'Paypal-Debug-Id': 'standin' });
          res.end(JSON.stringify(r.body));
        },
        (e: unknown) => {
          res.writeHead(400, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify({ name: 'INVALID_REQUEST', message: e instanceof Error ? e.message : String(e) }));
        },
      );
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  s.url = base;
  return s;
}

/**
 * The settings of a server that takes payments through this stand-in, with room for PayPal's many
 * deliveries: PayPal sends them from many servers, the tests from one address.
 */
/**
 * For a server that takes bursts of 100 to 200 requests or settlements at once, to show what is
 * booked once and numbered without a gap: room for all of them, so that on a loaded machine none is
 * refused by the fair share's or the pool's deadline (their own tests are test/faults/fair-share and
 * src/server/db/fair-share.test.ts).
 */
export const BURSTS = { DATABASE_CLIENT_SLOTS: '500', DATABASE_POOL_TIMEOUT_MS: '60000' };

export function payPalServerEnv(paypal: PayPalStandIn): Record<string, string> {
  return {
    RATE_LIMITS_ENABLED: 'false',
    MAX_CONNECTIONS_PER_ADDRESS: '1000',
    ...BURSTS,
    PAYPAL_CLIENT_ID: paypal.clientId,
    PAYPAL_CLIENT_SECRET: paypal.clientSecret,
    PAYPAL_MODE: 'sandbox',
    PAYPAL_WEBHOOK_ID: paypal.webhookId,
    PAYPAL_API_URL: paypal.url,
    PAYPAL_TIMEOUT_MS: '2000',
  };
}

import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { nowPaymentsSignature } from '../../src/server/payments/nowpayments';
import { json, startHttpStandIn, type StandInRequest } from '../helpers/http-stand-in';
import { BURSTS } from './paypal-stand-in';

/**
 * A local stand-in for NOWPayments (decision 050): the endpoints NodeHarbor calls, in its JSON
 * shapes (POST /v1/invoice, POST /v1/auth, GET /v1/payment/?invoiceId=), its hosted invoice page,
 * and its callbacks (IPN), signed as its documentation says: HMAC-SHA512 of the body's JSON with
 * sorted keys, under the IPN secret, in x-nowpayments-sig.
 */
export type StandInInvoice = {
  id: number;
  order_id: string;
  price_amount: number;
  price_currency: string;
  ipn_callback_url: string;
  success_url: string;
  cancel_url: string;
};

/** A payment made on an invoice, as NOWPayments' payment status writes it. */
export type StandInPayment = {
  payment_id: number;
  invoice_id: number;
  payment_status: string;
  pay_address: string;
  price_amount: number;
  price_currency: string;
  pay_amount: number;
  actually_paid: number;
  pay_currency: string;
  order_id: string;
  order_description: string;
  outcome_amount: number;
  outcome_currency: string;
  created_at: string;
  updated_at: string;
};

/** One signed callback, kept so that a test can deliver it again, or late. */
export type Callback = { url: string; headers: Record<string, string>; body: string };

export type NowPaymentsStandIn = {
  url: string;
  /** Where its hosted invoices are: NOWPAYMENTS_CHECKOUT_ORIGIN. */
  origin: string;
  apiKey: string;
  ipnSecret: string;
  invoices: Map<number, StandInInvoice>;
  payments: Map<number, StandInPayment>;
  calls: { invoice: number; auth: number; list: number };
  /**
   * A payment of `fraction` of the invoice's price (1: exactly) reaching `status`, and its signed
   * callback, sent unless `deliver` is false (a callback lost on the way). Answers the callback.
   */
  pay(invoiceId: number, opts?: { fraction?: number; status?: string; deliver?: boolean }): Promise<Callback>;
  /** Sends a callback, as NOWPayments delivers it; the status our server answered. */
  deliver(cb: Callback): Promise<number>;
  stop(): Promise<void>;
};

/** The server's environment to use the stand-in. */
export function nowPaymentsServerEnv(s: NowPaymentsStandIn): Record<string, string> {
  return {
    RATE_LIMITS_ENABLED: 'false',
    MAX_CONNECTIONS_PER_ADDRESS: '1000',
    ...BURSTS,
    NOWPAYMENTS_API_KEY: s.apiKey,
    NOWPAYMENTS_IPN_SECRET: s.ipnSecret,
    NOWPAYMENTS_EMAIL: 'merchant@nodeharbor.test',
    NOWPAYMENTS_PASSWORD: 'stand-in-password',
    NOWPAYMENTS_API_URL: `${s.url}/v1`,
    NOWPAYMENTS_CHECKOUT_ORIGIN: s.origin,
    NOWPAYMENTS_TIMEOUT_MS: '5000',
  };
}

/** The coin the stand-in's buyers pay with, at a fixed rate: 1 USD = 0.5 coins. */
const COIN_PER_USD = 0.5;

const page = (invoice: StandInInvoice) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>NOWPayments invoice ${invoice.id}</title></head>
<body><h1>Pay ${invoice.price_amount} ${invoice.price_currency.toUpperCase()}</h1>
<form method="post"><button name="decision" value="pay">Pay with USDT</button> <button name="decision" value="cancel">Cancel</button></form>
</body></html>`;

export async function startNowPaymentsStandIn(): Promise<NowPaymentsStandIn> {
  const apiKey = `np-${randomBytes(8).toString('hex')}`;
  const ipnSecret = randomBytes(24).toString('base64');
  const token = `jwt-${randomBytes(12).toString('hex')}`;
  const invoices = new Map<number, StandInInvoice>();
  const payments = new Map<number, StandInPayment>();
  const calls = { invoice: 0, auth: 0, list: 0 };
  let next = 4_500_000_000;
  // Known once the server listens: where the hosted invoices are.
  let origin = '';

  function sign(body: Record<string, unknown>, url: string): Callback {
    return { url, headers: { 'content-type': 'application/json', 'x-nowpayments-sig': nowPaymentsSignature(ipnSecret, body) }, body: JSON.stringify(body) };
  }

  async function deliver(cb: Callback): Promise<number> {
    const res = await fetch(cb.url, { method: 'POST', headers: cb.headers, body: cb.body });
    await res.body?.cancel();
    return res.status;
  }

  async function pay(invoiceId: number, opts: { fraction?: number; status?: string; deliver?: boolean } = {}): Promise<Callback> {
    const invoice = invoices.get(invoiceId);
    if (!invoice) throw new Error(`no invoice ${invoiceId}`);
    const now = new Date().toISOString();
    const payAmount = invoice.price_amount * COIN_PER_USD;
    const payment: StandInPayment = {
      payment_id: next++,
      invoice_id: invoice.id,
      payment_status: opts.status ?? 'finished',
      pay_address: `T${randomBytes(16).toString('hex')}`,
      price_amount: invoice.price_amount,
      price_currency: invoice.price_currency,
      pay_amount: payAmount,
      actually_paid: payAmount * (opts.fraction ?? 1),
      pay_currency: 'usdttrc20',
      order_id: invoice.order_id,
      order_description: 'NodeHarbor credit',
      outcome_amount: payAmount * (opts.fraction ?? 1) * 0.995,
      outcome_currency: 'usdttrc20',
      created_at: now,
      updated_at: now,
    };
    payments.set(payment.payment_id, payment);
    const cb = sign({ ...payment }, invoice.ipn_callback_url);
    if (opts.deliver !== false) await deliver(cb);
    return cb;
  }

  const handle = async (req: StandInRequest, res: ServerResponse) => {
    const path = req.url.pathname;
    // The hosted invoice: the buyer pays (finished at once) or cancels, and is sent back.
    if (path === '/payment/' || path === '/payment') {
      const invoice = invoices.get(Number(req.url.searchParams.get('iid')));
      if (!invoice) return void res.writeHead(404).end('No such invoice');
      if (req.method === 'GET') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(invoice));
      const decision = new URLSearchParams(req.body).get('decision');
      if (decision === 'pay') await pay(invoice.id);
      return void res.writeHead(303, { location: decision === 'pay' ? invoice.success_url : invoice.cancel_url }).end();
    }
    if (req.headers['x-api-key'] !== apiKey) return json(res, 403, { status: false, statusCode: 403, code: 'INVALID_API_KEY', message: 'Invalid api key' });
    const body = (req.body ? JSON.parse(req.body) : {}) as Record<string, unknown>;
    if (req.method === 'POST' && path === '/v1/invoice') {
      calls.invoice++;
      const invoice: StandInInvoice = {
        id: next++,
        order_id: String(body.order_id),
        price_amount: Number(body.price_amount),
        price_currency: String(body.price_currency),
        ipn_callback_url: String(body.ipn_callback_url),
        success_url: String(body.success_url),
        cancel_url: String(body.cancel_url),
      };
      invoices.set(invoice.id, invoice);
      const at = new Date().toISOString();
      return json(res, 200, {
        ...invoice,
        token_id: randomBytes(5).toString('hex'),
        invoice_url: `${origin}/payment/?iid=${invoice.id}`,
        created_at: at,
        updated_at: at,
      });
    }
    if (req.method === 'POST' && path === '/v1/auth') {
      calls.auth++;
      if (body.email !== 'merchant@nodeharbor.test' || body.password !== 'stand-in-password') return json(res, 401, { message: 'Wrong email or password' });
      return json(res, 200, { token });
    }
    if (req.method === 'GET' && path === '/v1/payment/') {
      calls.list++;
      if (req.headers.authorization !== `Bearer ${token}`) return json(res, 401, { message: 'Authorization header is empty (Bearer JWTtoken is required)' });
      const invoiceId = Number(req.url.searchParams.get('invoiceId'));
      const data = [...payments.values()].filter((p) => p.invoice_id === invoiceId);
      return json(res, 200, { data, limit: 50, page: 0, pagesCount: 1, total: data.length });
    }
    return json(res, 404, { message: 'Not found' });
  };

  const server = await startHttpStandIn(handle);
  origin = server.url;
  return { url: server.url, origin, apiKey, ipnSecret, invoices, payments, calls, pay, deliver, stop: server.stop };
}

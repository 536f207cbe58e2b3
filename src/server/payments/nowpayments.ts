import { createHmac, timingSafeEqual } from 'node:crypto';
import type { NowPaymentsConfig } from '../env';
import { centsToDollars, PaymentProviderError } from './provider';
import type { CryptoProcessor, InvoiceSettlement, InvoiceState } from './crypto';

/** A payment as NOWPayments' callbacks and `GET /v1/payment/` write it (decision 050). */
type Payment = {
  payment_id?: unknown;
  invoice_id?: unknown;
  order_id?: unknown;
  payment_status?: unknown;
  price_amount?: unknown;
  price_currency?: unknown;
  pay_amount?: unknown;
  actually_paid?: unknown;
};

/**
 * Its statuses in our words. `partially_paid` is final at NOWPayments: the funds reached the
 * merchant and are not refunded. `refunded` changes nothing of ours (refunds are manual).
 */
const STATES: Record<string, InvoiceState> = {
  waiting: 'open',
  confirming: 'open',
  refunded: 'open',
  confirmed: 'paid',
  sending: 'paid',
  finished: 'paid',
  partially_paid: 'paid',
  expired: 'expired',
  failed: 'failed',
};

/** A bearer token from POST /v1/auth lives 5 minutes; ours is renewed after 4. */
const TOKEN_MS = 4 * 60_000;

const text = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : null);
const num = (v: unknown) => (typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN);

/** NOWPayments' signing input: the body's JSON with its keys sorted, as its documentation writes it. */
export function nowPaymentsSigningString(body: Record<string, unknown>): string {
  return JSON.stringify(body, Object.keys(body).sort());
}

/** The x-nowpayments-sig of `body` under the IPN secret: HMAC-SHA512, hex. */
export function nowPaymentsSignature(secret: string, body: Record<string, unknown>): string {
  return createHmac('sha512', secret).update(nowPaymentsSigningString(body)).digest('hex');
}

/**
 * What arrived of a payment, in USD at the invoice's rate: price_amount × actually_paid ÷
 * pay_amount, rounded down to the cent (a hair of float error is not a cent lost).
 */
function arrived(p: Payment): { currency: string | null; value: string | null } {
  const currency = text(p.price_currency)?.toUpperCase() ?? null;
  const price = num(p.price_amount);
  const paid = num(p.actually_paid);
  const asked = num(p.pay_amount);
  if (![price, paid, asked].every(Number.isFinite) || asked <= 0 || paid < 0) return { currency, value: null };
  return { currency, value: (Math.floor(((price * paid) / asked) * 100 + 1e-7) / 100).toFixed(2) };
}

function settlement(p: Payment): InvoiceSettlement | null {
  const invoiceId = text(p.invoice_id);
  const status = text(p.payment_status);
  if (!invoiceId || !status) return null;
  const state = STATES[status] ?? 'open';
  return {
    invoiceId,
    purchaseId: text(p.order_id),
    state,
    arrived: state === 'paid' ? arrived(p) : { currency: null, value: null },
    paymentId: text(p.payment_id),
  };
}

/** The payment that speaks for an invoice: a final one first, then one still under way, then the rest. */
const RANK: Record<InvoiceState, number> = { paid: 0, open: 1, expired: 2, failed: 3 };

/** NOWPayments' hosted invoices over its REST API (x-api-key), and its signed callbacks (IPN). */
export function createNowPayments(config: NowPaymentsConfig): CryptoProcessor {
  let token: { value: string; until: number } | undefined;

  async function call(method: string, path: string, init: { body?: unknown; bearer?: string } = {}) {
    let res: Response;
    try {
      res = await fetch(`${config.apiUrl}${path}`, {
        method,
        headers: {
          'x-api-key': config.apiKey,
          ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }),
          ...(init.bearer ? { Authorization: `Bearer ${init.bearer}` } : {}),
        },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
        signal: AbortSignal.timeout(config.timeoutMs),
        redirect: 'error',
      });
    } catch (e) {
      const timedOut = e instanceof Error && e.name === 'TimeoutError';
      const where = `${method} ${path.split('?')[0]}`;
      throw new PaymentProviderError(
        timedOut ? `NOWPayments did not answer ${where} within ${config.timeoutMs} ms` : `NOWPayments could not be reached (${where})`,
        true,
      );
    }
    const body = (await res.json().catch(() => null)) as Record<string, unknown> | null;
    if (res.status >= 400 || body === null) {
      const message = typeof body?.message === 'string' ? body.message.slice(0, 200) : `status ${res.status}`;
      throw new PaymentProviderError(`NOWPayments refused ${method} ${path.split('?')[0]}: ${message}`, res.status >= 500 || res.status === 429);
    }
    return body;
  }

  async function bearer(): Promise<string> {
    if (token && Date.now() < token.until) return token.value;
    const b = await call('POST', '/auth', { body: { email: config.email, password: config.password } });
    if (typeof b.token !== 'string') throw new PaymentProviderError('NOWPayments answered POST /auth without a token', false);
    token = { value: b.token, until: Date.now() + TOKEN_MS };
    return token.value;
  }

  return {
    name: 'nowpayments',

    async createInvoice({ cents, purchaseId, successUrl, cancelUrl, callbackUrl }) {
      const b = await call('POST', '/invoice', {
        body: {
          price_amount: Number(centsToDollars(cents)),
          price_currency: 'usd',
          order_id: purchaseId,
          order_description: 'NodeHarbor credit',
          ipn_callback_url: callbackUrl,
          success_url: successUrl,
          cancel_url: cancelUrl,
        },
      });
      const invoiceId = text(b.id);
      const url = text(b.invoice_url);
      // The buyer is sent where the answer says: only to NOWPayments' own checkout.
      if (!invoiceId || !url || !URL.canParse(url) || new URL(url).origin !== config.checkoutOrigin) {
        throw new PaymentProviderError('NOWPayments answered POST /invoice without an invoice on its checkout', false);
      }
      return { invoiceId, url };
    },

    verifyCallback(headers, rawBody) {
      const signature = headers['x-nowpayments-sig'] ?? '';
      let body: unknown;
      try {
        body = JSON.parse(rawBody);
      } catch {
        return null;
      }
      if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
      const expected = Buffer.from(nowPaymentsSignature(config.ipnSecret, body as Record<string, unknown>), 'hex');
      const given = Buffer.from(signature, 'hex');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
      return settlement(body as Payment);
    },

    async invoiceSettlement(invoiceId) {
      const b = await call('GET', `/payment/?invoiceId=${encodeURIComponent(invoiceId)}&limit=50&page=0&sortBy=created_at&orderBy=asc`, {
        bearer: await bearer(),
      });
      const payments = (Array.isArray(b.data) ? (b.data as Payment[]) : []).map(settlement).filter((s): s is InvoiceSettlement => s?.invoiceId === invoiceId);
      payments.sort((x, y) => RANK[x.state] - RANK[y.state]);
      return payments[0] ?? { invoiceId, purchaseId: null, state: 'open', arrived: { currency: null, value: null }, paymentId: null };
    },
  };
}

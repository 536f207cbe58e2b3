import type { Money } from './provider';

/**
 * Where a crypto invoice stands, in our words: `paid` is the processor's final state (the credit
 * may be booked), `open` still waits for the chain, `expired` and `failed` end it unpaid.
 */
export type InvoiceState = 'open' | 'paid' | 'expired' | 'failed';

/** What the processor says of one invoice, whichever way it reached us (a callback, or our asking). */
export type InvoiceSettlement = {
  invoiceId: string;
  /** Our purchase's id, which the invoice carries as its order id. */
  purchaseId: string | null;
  state: InvoiceState;
  /** What arrived, in USD at the invoice's own rate: what a paid invoice credits. */
  arrived: Money;
  /** The processor's id of the payment, the receipt's reference. */
  paymentId: string | null;
};

/**
 * A crypto processor's hosted invoices (decision 050): NOWPayments, or the second one the record
 * names. Every method may throw PaymentProviderError.
 */
export interface CryptoProcessor {
  /** Stored in credit_purchases.provider. */
  readonly name: 'nowpayments';
  /** The invoice's id and the hosted page to send the buyer to. */
  createInvoice(req: { cents: number; purchaseId: string; successUrl: string; cancelUrl: string; callbackUrl: string }): Promise<{
    invoiceId: string;
    url: string;
  }>;
  /** The settlement a callback tells, when its signature is the processor's; otherwise null. */
  verifyCallback(headers: Record<string, string | undefined>, rawBody: string): InvoiceSettlement | null;
  /** Asked of the processor: for the buyer's return and for reconciliation. */
  invoiceSettlement(invoiceId: string): Promise<InvoiceSettlement>;
}

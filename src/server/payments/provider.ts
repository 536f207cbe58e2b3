/** Where an order stands at the provider, in our words. */
export type OrderState = 'awaiting_approval' | 'approved' | 'completed' | 'voided' | 'not_found';

export type ProviderOrder = { id: string; state: OrderState };

/**
 * An amount as the provider reported it: its currency and value exactly as written (PayPal's
 * `amount.currency_code` and `amount.value`), not yet read as ours. The database compares both with
 * the order (decision 031), so a reading here can never turn yen into dollars.
 */
export type Money = { currency: string | null; value: string | null };

/** What a capture did. */
export type CaptureResult =
  | { status: 'completed'; captured: Money; captureId: string | null }
  /** The provider holds the money for review (it may take up to 48 hours): a webhook or reconciliation finishes it. */
  | { status: 'pending' }
  | { status: 'declined'; reason: string }
  | { status: 'not_approved' };

/** What a refund request did: done, accepted for later (a webhook finishes it), or refused. */
export type RefundResult =
  | { status: 'completed'; providerRefundId: string; refunded: Money; captureId: string | null }
  | { status: 'pending'; providerRefundId: string; captureId: string | null }
  | { status: 'refused'; reason: string };

/** A verified webhook event that concerns one of our orders. */
export type WebhookEvent =
  | { kind: 'approved'; orderId: string }
  | { kind: 'captured'; orderId: string; captured: Money; captureId: string | null }
  /**
   * Money went back to the buyer: a refund (ours, made in the provider's dashboard) or a reversal
   * (a chargeback). `ourRefundId` is the refund we asked for, when it was ours.
   */
  | { kind: 'refunded'; captureId: string | null; orderId: string | null; refundId: string; amount: Money; reversal: boolean; ourRefundId: string | null }
  | { kind: 'closed'; orderId: string; status: 'rejected' | 'expired' }
  | { kind: 'ignored'; type: string };

/**
 * A payment provider call that failed. `transient` errors (timeouts, 5xx, network) are worth
 * retrying later; the others need a person. Messages never carry credentials.
 */
export class PaymentProviderError extends Error {
  constructor(
    message: string,
    readonly transient: boolean,
  ) {
    super(message);
    this.name = 'PaymentProviderError';
  }
}

/** PayPal Orders v2, or the built-in test provider. Every method may throw PaymentProviderError. */
export interface PaymentProvider {
  /** Stored in credit_purchases.provider. */
  readonly name: 'paypal' | 'test';
  /** Idempotent per purchase id. */
  createOrder(amountCents: number, purchaseId: string, returnUrl: string, cancelUrl: string): Promise<{ orderId: string; approvalUrl: string }>;
  getOrder(orderId: string): Promise<ProviderOrder>;
  /** Idempotent: capturing a captured order answers its capture again. */
  captureOrder(orderId: string): Promise<CaptureResult>;
  /**
   * Refunds `cents` of a captured order. Idempotent per `refundId` (ours), which the provider
   * echoes back in its refund events. `captureId` may be unknown for orders captured before it was
   * kept: the provider then reads it from the order.
   */
  refund(req: { orderId: string; captureId: string | null; cents: number; refundId: string }): Promise<RefundResult>;
  /** The event when the delivery is authentic, otherwise null. */
  verifyWebhook(headers: Record<string, string | undefined>, rawBody: string): Promise<WebhookEvent | null>;
}

/** Dollars as PayPal and numeric(12,2) write them. */
export function centsToDollars(cents: number): string {
  return (cents / 100).toFixed(2);
}

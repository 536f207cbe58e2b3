/**
 * Top-ups in crypto (issue 38, item 1; decision 050): the processor's name as purchases store it,
 * and the words the Billing page and the purchase's note use, once.
 */

/** credit_purchases.provider of a crypto top-up. */
export const CRYPTO_PROVIDER = 'nowpayments';

/** How a purchase's provider reads in Purchase History and on its documents. */
export const PROVIDER_LABELS: Record<string, string> = { paypal: 'PayPal', [CRYPTO_PROVIDER]: 'Crypto (NOWPayments)' };

const dollars = (n: number) => `$${n.toFixed(2)}`;

export const cryptoMessages = {
  payWithCrypto: 'Pay with crypto',
  notAvailable: 'Crypto payments are not available.',
  /** The purchase's note when what arrived differs from the order, or came late. */
  underpaid: (credited: number, ordered: number) => `Underpaid: ${dollars(credited)} of ${dollars(ordered)} arrived, credited at the invoice's rate.`,
  overpaid: (credited: number, ordered: number) => `Overpaid: ${dollars(credited)} arrived for ${dollars(ordered)}, all credited at the invoice's rate.`,
  late: 'Paid after the invoice expired.',
} as const;

/** The note of a settled crypto purchase, or null when it was paid as ordered, in time. */
export function cryptoNote(credited: number, ordered: number, late: boolean): string | null {
  const parts = [
    credited < ordered ? cryptoMessages.underpaid(credited, ordered) : credited > ordered ? cryptoMessages.overpaid(credited, ordered) : null,
    late ? cryptoMessages.late : null,
  ].filter((p): p is string => p !== null);
  return parts.length ? parts.join(' ') : null;
}

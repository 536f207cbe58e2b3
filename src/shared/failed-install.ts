/**
 * A failed installation costs nothing, visibly (issue 36, item 5; migration 0050; decision 041):
 * the words of the ledger, the card, the Retry dialog, the events and the database's refusals,
 * once. The SQL functions private.refund_install_charge and public.retry_service_installation write
 * and raise `failedInstallTexts.refundDescription`, `retryChargeDescription` and
 * `failedInstallMessages` word for word; test/domain/failed-install-refund.test.ts checks both sides.
 */

/** Dollars as the SQL functions write them (private.money): "$10.00", whatever the reader's language. */
const dollars = (amount: number) => `$${amount.toFixed(2)}`;

export const failedInstallTexts = {
  /** The ledger's credit for a node that never ran. */
  refundDescription: (name: string) => `Refund: installation of ${name} failed`,
  /** The ledger's charge of a retry its owner confirmed. */
  retryChargeDescription: (name: string, plan: string) => `Installation retry for ${name} (${plan})`,
  /** The failed card and page, in place of the renewal badge and "Paid until". */
  refunded: (amount: string) => `${amount} refunded to your balance: a failed installation costs nothing.`,
  /** The confirm dialog of a retry that charges. */
  retryTitle: (name: string) => `Retry ${name}?`,
  retryDescription: (price: string) =>
    `Retrying charges ${price} from your balance, as ordering did. Its paid period starts when the node first runs, and if the installation fails again the ${price} comes back at once.`,
  retryConfirm: (price: string) => `Retry for ${price}`,
  retrying: 'Retrying...',
  /** The dialog's link when the balance falls short. */
  addFunds: 'Add funds',
} as const;

export const failedInstallMessages = {
  /** A retry that charges, asked for without the caller having confirmed that price (an older client, or a price changed meanwhile). */
  retryUnconfirmed: (price: number) => `Retrying charges ${dollars(price)}. Confirm the charge to retry.`,
  /** An admin's retry of an installation whose charge went back to its owner: only the owner may buy it again. */
  adminRetryRefunded: 'Its owner was refunded for this installation, so only they can retry it: a retry charges them again.',
} as const;

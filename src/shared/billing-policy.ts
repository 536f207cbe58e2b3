/**
 * The billing and refund policy as the code applies it (issue 38, item 4): one text for the terms'
 * "Billing and refunds" section and the FAQ, its numbers from the configuration the server runs
 * with, so the page can never promise other than the code does.
 */

/** What PayPal says of a refund to a card: it "can take up to 30 days to appear on your statement" (https://www.paypal.com/nz/smarthelp/article/how-is-a-paypal-refund-credited-faq1083). */
export const PAYPAL_CARD_REFUND_DAYS = 30;

export type BillingPolicy = { heading: string; text: string }[];

/** `suspensionDays`: SUSPENSION_DAYS, as /config.json gives it; `crypto`: whether crypto top-ups are offered (NOWPAYMENTS_*). */
export function billingPolicy(suspensionDays: number, crypto = false): BillingPolicy {
  return [
    { heading: 'Prepaid credit', text: 'Credit you buy never expires. It pays for services from your balance and is not redeemable for cash.' },
    {
      heading: 'Failed installations',
      text: 'A failed installation is not charged: the price comes back to your balance as soon as it fails. Retrying charges it again only once you confirm.',
    },
    {
      heading: 'Renewals',
      text: `A service renews from your balance at the end of each paid period. When the balance is short, the service is suspended and its node stopped; add funds within ${suspensionDays} days and it starts again, otherwise it is terminated.`,
    },
    {
      heading: 'Refunds',
      text: `We refund a purchase to the payment method it came from, through PayPal, and take the same amount from your credit, which can leave your balance below zero. PayPal returns it as you paid, to your card or to your PayPal balance; a refund to a card can take up to ${PAYPAL_CARD_REFUND_DAYS} days to appear on your statement. Deleting a service refunds nothing, but its unused paid time is reused by your next service of the same plan.`,
    },
    ...(crypto
      ? [
          {
            heading: 'Crypto payments',
            text: 'A payment in crypto is final on chain: we credit it once the processor confirms it, in US dollars at the rate of its invoice, and credit what arrived if you sent more or less than the invoice asked. It cannot be reversed; a refund of it is paid back by us, outside the processor, to an address you give us.',
          },
        ]
      : []),
  ];
}

/**
 * A service's automatic renewal, which its owner turns on or off (issue 36; migration 0046): the
 * words of the service page, its card, its events and the database's refusals, once. The SQL
 * function public.set_service_auto_renew raises `autoRenewMessages` word for word.
 */
export const autoRenewTexts = {
  /** The switch's label on the service page. */
  label: 'Renew automatically',
  onHint: 'At the end of each paid period the service renews from your credit.',
  offHint: 'The service ends with its paid period. Nothing more is charged.',
  /** The events auto_renew_on and auto_renew_off, and the toasts of the switch. */
  turnedOn: 'Automatic renewal turned on',
  turnedOff: 'Automatic renewal turned off',
  onToast: (name: string, day: string) => `${name} renews on ${day} from your credit.`,
  offToast: (name: string, day: string) => `${name} ends on ${day}. Nothing more is charged.`,
  /** The renewal badge of a service that will not renew, in place of "Renews in 30 days". */
  ends: (relative: string) => `Ends ${relative}`,
  /** A refusal that did not come from the server (the request was lost): spec §8's words. */
  failed: 'Failed to update service',
} as const;

export const autoRenewMessages = {
  expired: 'This service has expired. Extend it to start it again.',
  suspended: 'This service is suspended. Add credit to renew it, or delete it.',
  oneTime: 'A one-time service does not renew',
  planDoesNotRenew: 'The plan of this service does not renew',
  notBoolean: 'p_auto_renew must be true or false',
} as const;

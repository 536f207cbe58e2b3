import { describe, expect, it } from 'vitest';
import {
  canFund,
  confirmsAccountEmail,
  changePasswordSchema,
  contactSchema,
  createServiceError,
  createServiceSchema,
  extendCost,
  extendMonthChoices,
  adminCreditErrors,
  refundErrors,
  refundTooMuchMessage,
  keyLabel,
  keyNoun,
  messages,
  purchaseCreditsSchema,
  resetPasswordSchema,
  signInSchema,
  signUpSchema,
  topUpSchema,
  type CreateServiceInput,
} from './validation';
import { PROFILE_FULL_NAME_MAX } from './constants';

const firstMessage = (r: { success: boolean; error?: { issues: { message: string }[] } }) => (r.success ? null : r.error!.issues[0]!.message);

describe('form rules of spec §5', () => {
  it('contact form', () => {
    const ok = { name: 'Ada', email: 'ada@example.com', topic: 'sales', message: 'Hello, I have a question.', honeypot: '' };
    expect(firstMessage(contactSchema.safeParse(ok))).toBeNull();
    expect(firstMessage(contactSchema.safeParse({ ...ok, name: 'A' }))).toBe(messages.contactNameShort);
    expect(firstMessage(contactSchema.safeParse({ ...ok, name: 'A'.repeat(101) }))).toBe(messages.contactNameLong);
    expect(firstMessage(contactSchema.safeParse({ ...ok, email: 'ada@' }))).toBe(messages.email);
    expect(firstMessage(contactSchema.safeParse({ ...ok, topic: '' }))).toBe(messages.topic);
    expect(firstMessage(contactSchema.safeParse({ ...ok, message: 'Too short' }))).toBe(messages.contactMessageShort);
    expect(firstMessage(contactSchema.safeParse({ ...ok, message: 'x'.repeat(1001) }))).toBe(messages.contactMessageLong);
    expect(firstMessage(contactSchema.safeParse({ ...ok, honeypot: 'http://spam' }))).toBe(messages.bot);
  });

  it('register, reset password, sign-in and settings password', () => {
    const reg = { email: 'a@b.co', password: 'secret12', confirmPassword: 'secret12', fullName: 'Ada' };
    expect(firstMessage(signUpSchema.safeParse(reg))).toBeNull();
    expect(firstMessage(signUpSchema.safeParse({ ...reg, confirmPassword: 'other123' }))).toBe(messages.passwordsMismatch);
    expect(firstMessage(signUpSchema.safeParse({ ...reg, fullName: ' ' }))).toBe(messages.fullNameRequired);
    // The profile's limit, in characters as the database counts them.
    expect(firstMessage(signUpSchema.safeParse({ ...reg, fullName: '😀'.repeat(PROFILE_FULL_NAME_MAX) }))).toBeNull();
    expect(firstMessage(signUpSchema.safeParse({ ...reg, fullName: 'a'.repeat(PROFILE_FULL_NAME_MAX + 1) }))).toBe(messages.fullNameLong);
    expect(firstMessage(resetPasswordSchema.safeParse({ password: '1234567', confirmPassword: '1234567' }))).toBe(messages.resetPasswordShort);
    expect(firstMessage(resetPasswordSchema.safeParse({ password: '12345678', confirmPassword: '87654321' }))).toBe(messages.passwordsMismatch);
    expect(firstMessage(signInSchema.safeParse({ email: '', password: '' }))).toBe(messages.credentialsMissing);
    const pw = { currentPassword: 'anything', newPassword: '1234567', confirmPassword: '1234567' };
    expect(firstMessage(changePasswordSchema.safeParse(pw))).toBe(messages.settingsPasswordShort);
    expect(firstMessage(changePasswordSchema.safeParse({ ...pw, newPassword: '12345678', confirmPassword: '123456789' }))).toBe(messages.passwordsMismatch);
    expect(firstMessage(changePasswordSchema.safeParse({ ...pw, currentPassword: '', newPassword: 'Xq7#vR2!', confirmPassword: 'Xq7#vR2!' }))).toBe(
      messages.currentPasswordRequired,
    );
  });

  it('top-up: minimum $1 in cents', () => {
    expect(firstMessage(topUpSchema.safeParse({ amount: 0.99 }))).toBe(messages.topUpMin);
    expect(firstMessage(topUpSchema.safeParse({ amount: 1 }))).toBeNull();
    expect(firstMessage(topUpSchema.safeParse({ amount: 12.34 }))).toBeNull();
    expect(firstMessage(topUpSchema.safeParse({ amount: 1.001 }))).toBe(messages.topUpAmount);
    expect(firstMessage(topUpSchema.safeParse({ amount: 10_000 }))).toBeNull();
    expect(firstMessage(topUpSchema.safeParse({ amount: 10_000.01 }))).toBe(messages.topUpMax);
    expect(messages.topUpMax).toBe('Maximum purchase is $10,000');
  });

  it('purchase-credits body: amount twice, agreeing', () => {
    const ok = { amount: 19.99, credits_amount: 19.99, user_id: 'u' };
    expect(firstMessage(purchaseCreditsSchema.safeParse(ok))).toBeNull();
    expect(firstMessage(purchaseCreditsSchema.safeParse({ amount: 5, credits_amount: 5 }))).toBeNull();
    expect(firstMessage(purchaseCreditsSchema.safeParse({ ...ok, amount: 0.5, credits_amount: 0.5 }))).toBe(messages.topUpMin);
    expect(firstMessage(purchaseCreditsSchema.safeParse({ ...ok, amount: '10' }))).toBe(messages.topUpAmount);
    expect(firstMessage(purchaseCreditsSchema.safeParse({ ...ok, credits_amount: 20 }))).toBe(messages.topUpMismatch);
  });
});

const MASTER_NODE = { data_name: 'Master Node License Key', data_validation: { minimum_length: 20 } };

describe('the key is named as its label names it', () => {
  it.each<[Parameters<typeof keyLabel>[0], string, string]>([
    [null, 'API Key', 'API key'],
    [{}, 'API Key', 'API key'],
    [{ data_name: '  ' }, 'API Key', 'API key'],
    [{ data_name: 42 as unknown as string }, 'API Key', 'API key'],
    [MASTER_NODE, 'Master Node License Key', 'License key'],
    [{ data_name: 'Gala API Key' }, 'Gala API Key', 'API key'],
    [{ data_name: 'Node ID' }, 'Node ID', 'Node ID'],
    [{ data_name: 'Licence' }, 'Licence', 'Licence'],
  ])('%j: label %j, messages say %j', (properties, label, noun) => {
    expect(keyLabel(properties)).toBe(label);
    expect(keyNoun(properties)).toBe(noun);
  });

  it('in every key message, and spec §5 words without a label', () => {
    expect(messages.apiKeyRequired()).toBe('API key is required');
    expect(messages.apiKeyInvalid()).toBe('Please provide a valid API key');
    expect(messages.apiKeyDefaultLength()).toBe('API key must be 44-46 characters long');
    expect(messages.apiKeyDefaultEnding()).toBe('API key must end with "="');
    expect(messages.apiKeyMin(20, 'License key')).toBe('License key must be at least 20 characters long');
    expect(messages.apiKeyMax(64, 'License key')).toBe('License key must be at most 64 characters long');
    expect(messages.apiKeyEnding('==', 'License key')).toBe('License key must end with "=="');
    expect(messages.apiKeySpaces('License key')).toBe('License key cannot contain spaces');
    expect(messages.apiKeyChars('License key')).toBe('License key contains invalid characters');
    expect(messages.apiKeyFormat('####-##', 'License key')).toBe('License key must have the form ####-##');
  });
});

describe('the New Service form: one message per field, the most specific', () => {
  const valid = { name: 'node-1', productId: 'p', apiKey: `${'A'.repeat(43)}=` };
  /** Each field's messages, as react-hook-form's zod resolver shows them. */
  const fieldMessages = (change: Partial<typeof valid>, properties: Parameters<typeof keyLabel>[0] = null, existingNames: string[] = []) => {
    const r = createServiceSchema({ properties, existingNames }).safeParse({ ...valid, ...change });
    return r.success ? {} : Object.fromEntries(r.error.issues.map((i) => [i.path.join('.'), i.message]));
  };
  it.each<[Partial<typeof valid>, Parameters<typeof keyLabel>[0], string[], Record<string, string>]>([
    [{}, null, [], {}],
    [{ name: '' }, null, [], { name: messages.serviceNameRequired }],
    [{ name: '  ' }, null, [], { name: messages.serviceNameRequired }],
    [{ name: 'ab' }, null, [], { name: messages.serviceNameShort }],
    [{ name: 'a b' }, null, [], { name: messages.serviceNameSpaces }],
    [{ name: '-node' }, null, [], { name: messages.serviceNameEdges }],
    [{ name: 'Node-1' }, null, ['NODE-1'], { name: messages.serviceNameTaken }],
    [{ productId: '' }, null, [], { productId: messages.planRequired }],
    [{ productId: null as unknown as string }, null, [], { productId: messages.planRequired }],
    [{ apiKey: '' }, null, [], { apiKey: messages.apiKeyRequired() }],
    [{ apiKey: 'short=' }, null, [], { apiKey: messages.apiKeyDefaultLength() }],
    [{ apiKey: '' }, MASTER_NODE, [], { apiKey: 'License key is required' }],
    [{ apiKey: 'MN-1' }, MASTER_NODE, [], { apiKey: messages.apiKeyMin(20, 'License key') }],
    [
      { name: '', productId: '', apiKey: '' },
      null,
      [],
      { name: messages.serviceNameRequired, productId: messages.planRequired, apiKey: messages.apiKeyRequired() },
    ],
  ])('%j under %j, taken %j → %j', (change, properties, taken, expected) => {
    expect(fieldMessages(change, properties, taken)).toEqual(expected);
  });
});

describe('create submit checks, in the order of spec §5', () => {
  const valid: CreateServiceInput = {
    loggedIn: true,
    name: 'node-1',
    apiKey: `${'A'.repeat(43)}=`,
    productId: 'p',
    properties: null,
    price: 10,
    balance: 10,
    reusableAvailable: false,
  };
  it.each<[Partial<CreateServiceInput>, string | null]>([
    [{}, null],
    [{ loggedIn: false, name: '' }, messages.notLoggedIn],
    [{ name: '', apiKey: '' }, messages.serviceNameRequired],
    [{ name: 'a b', apiKey: '' }, messages.serviceNameSpaces],
    [{ name: 'Node-1', existingNames: ['other', 'NODE-1'], apiKey: '' }, messages.serviceNameTaken],
    [{ apiKey: '', productId: null }, messages.apiKeyRequired()],
    [{ productId: null, apiKey: 'bad' }, messages.planRequired],
    [{ apiKey: 'bad', balance: 0 }, messages.apiKeyInvalid()],
    [{ balance: 9.99 }, messages.insufficientFunds],
    [{ balance: 0, reusableAvailable: true }, null],
    [{ balance: 0, price: 0 }, null],
    [{ apiKey: '', properties: MASTER_NODE }, 'License key is required'],
    [{ apiKey: 'MN-1', properties: MASTER_NODE }, 'Please provide a valid License key'],
  ])('%j → %s', (change, expected) => {
    expect(createServiceError({ ...valid, ...change })).toBe(expected);
  });

  it('funding rule', () => {
    expect(canFund({ price: 10, balance: 10, reusableAvailable: false })).toBe(true);
    expect(canFund({ price: 10, balance: 9, reusableAvailable: false })).toBe(false);
  });
});

describe('extension choices of spec §9', () => {
  it('monthly: 1 to 6 months at price × months; quarterly: 3 or 6 months at price × units', () => {
    expect(extendMonthChoices('1 MONTH')).toEqual([1, 2, 3, 4, 5, 6]);
    expect(extendMonthChoices('3 MONTH')).toEqual([3, 6]);
    expect(extendCost(10, '1 MONTH', 3)).toBe(30);
    expect(extendCost(30, '3 MONTH', 6)).toBe(60);
    expect(messages.insufficientCreditsDetail(20, 5)).toBe('You need $20.00 but only have $5.00');
    expect(messages.insufficientCreditsDetail(10, -8)).toBe('You need $10.00 but only have -$8.00');
  });
});

describe("admin add credit, in admin_add_credit's words", () => {
  it.each<[number, string, { amount: string | null; note: string | null }]>([
    [10, 'Goodwill', { amount: null, note: null }],
    [0.07, 'Goodwill', { amount: null, note: null }],
    [Number.NaN, '', { amount: messages.adminCreditAmount, note: messages.adminCreditNote }],
    [0, ' ', { amount: messages.adminCreditAmount, note: messages.adminCreditNote }],
    [-5, 'x', { amount: messages.adminCreditAmount, note: null }],
    [1.005, 'x', { amount: messages.adminCreditAmount, note: null }],
    [1, 'x'.repeat(501), { amount: null, note: messages.adminCreditNote }],
  ])('%s with note %j', (amount, note, expected) => {
    expect(adminCreditErrors(amount, note)).toEqual(expected);
  });
});

// The same cases as test/payments/refunds.test.ts sends to refund-purchase and private.begin_refund.
describe('refundErrors', () => {
  it.each([
    [10, '', 10, { amount: null, reason: null }],
    [0.01, 'Asked by the customer', 10, { amount: null, reason: null }],
    [0, '', 10, { amount: messages.refundAmount, reason: null }],
    [1.234, '', 10, { amount: messages.refundAmount, reason: null }],
    [Number.NaN, '', 10, { amount: messages.refundAmount, reason: null }],
    [5.01, '', 5, { amount: refundTooMuchMessage(5), reason: null }],
    [1, '', 0, { amount: refundTooMuchMessage(0), reason: null }],
    [1, 'x'.repeat(501), 10, { amount: null, reason: messages.refundReasonLong }],
  ])('%s with reason of %#, %s left', (amount, reason, left, expected) => {
    expect(refundErrors(amount, reason, left)).toEqual(expected);
  });

  it('says what is left as the database does', () => {
    expect(refundTooMuchMessage(4)).toBe('At most $4.00 of this purchase can be refunded');
    expect(refundTooMuchMessage(1234.5)).toBe('At most $1234.50 of this purchase can be refunded');
  });
});

describe('confirmsAccountEmail', () => {
  it.each([
    ['ada@nodeharbor.test', true],
    ['  ADA@NodeHarbor.test ', true],
    ['ada@nodeharbor.tes', false],
    ['', false],
  ])('%j confirms ada@nodeharbor.test: %s', (typed, ok) => {
    expect(confirmsAccountEmail(typed, 'ada@nodeharbor.test')).toBe(ok);
  });
});

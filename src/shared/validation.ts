import { z } from 'zod';
import {
  ADDRESS_LINK_MINUTES,
  ADMIN_CREDIT_MAX,
  ADMIN_CREDIT_NOTE_MAX,
  CONTACT_MESSAGE_MAX,
  CONTACT_MESSAGE_MIN,
  CONTACT_NAME_MAX,
  CONTACT_NAME_MIN,
  CONTACT_TOPICS,
  DEFAULT_API_KEY_ENDING,
  DEFAULT_API_KEY_MAX,
  DEFAULT_API_KEY_MIN,
  EXTEND_MONTHLY_MAX_MONTHS,
  EXTEND_QUARTER_MONTHS,
  EXTEND_QUARTERLY_MAX_UNITS,
  MONTHLY_INTERVAL,
  PASSWORD_MIN,
  PROFILE_FULL_NAME_MAX,
  REFUND_REASON_MAX,
  SERVICE_NAME_MAX,
  SERVICE_NAME_MIN,
  TOP_UP_MAX,
  TOP_UP_MIN,
  TOP_UP_STEP,
} from './constants';

/** What the key is called in messages when its plan's label does not say (spec §5). */
const API_KEY = 'API key';

/**
 * Every rule and message of spec §5, once. The SQL functions in db/migrations raise the same
 * messages; test/domain/validation-agreement.test.ts runs one table of cases through both.
 */
export const messages = {
  contactNameShort: `Name must be at least ${CONTACT_NAME_MIN} characters`,
  contactNameLong: `Name must be less than ${CONTACT_NAME_MAX} characters`,
  email: 'Please enter a valid email address',
  topic: 'Please select a topic',
  contactMessageShort: `Message must be at least ${CONTACT_MESSAGE_MIN} characters`,
  contactMessageLong: `Message must be less than ${CONTACT_MESSAGE_MAX} characters`,
  bot: 'Bot detected',
  passwordsMismatch: "Passwords don't match",
  fullNameRequired: 'Full name is required',
  fullNameLong: `Full name must be at most ${PROFILE_FULL_NAME_MAX} characters`,
  resetPasswordShort: `Password must be at least ${PASSWORD_MIN} characters long`,
  settingsPasswordShort: 'Password too short',
  currentPasswordRequired: 'Current password is required',
  /** GoTrue's words for a `pwned` password: here, one whose zxcvbn score is too low (password-strength.ts). */
  passwordCommon: 'Password is known to be weak and easy to guess, please choose a different one.',
  /** GoTrue's words for a `length` problem. */
  passwordLength: `Password should be at least ${PASSWORD_MIN} characters.`,
  credentialsMissing: 'You must provide either an email or phone number and a password',
  serviceNameShort: `Service name must be at least ${SERVICE_NAME_MIN} characters long`,
  serviceNameLong: `Service name must be no more than ${SERVICE_NAME_MAX} characters long`,
  serviceNameSpaces: 'Service name cannot contain spaces',
  serviceNameChars: 'Service name can only contain letters, numbers, hyphens, and underscores',
  serviceNameEdges: 'Service name cannot start or end with a hyphen or underscore',
  serviceNameTaken: 'A service with this name already exists',
  /** Also for another user's service: the two are not told apart. */
  serviceNotFound: 'Service not found',
  unknownPaymentMethod: 'Unknown payment method: leave it out, or send "crypto"',
  serviceNameHint: '3-16 characters, letters/numbers/hyphens/underscores only, cannot start/end with - or _',
  /** Key messages name the key as its plan's label does (keyNoun): "API key" unless the plan says otherwise. */
  apiKeyDefaultLength: (field = API_KEY) => `${field} must be ${DEFAULT_API_KEY_MIN}-${DEFAULT_API_KEY_MAX} characters long`,
  apiKeySpaces: (field = API_KEY) => `${field} cannot contain spaces`,
  apiKeyDefaultEnding: (field = API_KEY) => `${field} must end with "${DEFAULT_API_KEY_ENDING}"`,
  apiKeyChars: (field = API_KEY) => `${field} contains invalid characters`,
  apiKeyMin: (n: number, field = API_KEY) => `${field} must be at least ${n} characters long`,
  apiKeyMax: (n: number, field = API_KEY) => `${field} must be at most ${n} characters long`,
  apiKeyEnding: (x: string, field = API_KEY) => `${field} must end with "${x}"`,
  apiKeyFormat: (format: string, field = API_KEY) => `${field} must have the form ${format}`,
  notLoggedIn: 'You must be logged in to create a service',
  serviceNameRequired: 'Service name is required',
  apiKeyRequired: (field = API_KEY) => `${field} is required`,
  planRequired: 'Please select a service plan',
  apiKeyInvalid: (field = API_KEY) => `Please provide a valid ${field}`,
  /** Change key with the key the service already has: manage_service_operation refuses it in these words. */
  sameKey: "That is already this service's key",
  insufficientFunds: 'Insufficient funds and no reusable services available. Please purchase more credits.',
  extendProductRequired: 'Please select a product to extend with',
  insufficientCredits: 'Insufficient Credits',
  /** A balance a refund took below zero reads "-$8.00", as the dashboard writes it (private.money, migration 0050). */
  insufficientCreditsDetail: (need: number, have: number) => `You need $${need.toFixed(2)} but only have ${have < 0 ? '-' : ''}$${Math.abs(have).toFixed(2)}`,
  topUpMin: `Minimum purchase is $${TOP_UP_MIN}`,
  topUpMax: `Maximum purchase is $${TOP_UP_MAX.toLocaleString('en-US')}`,
  topUpAmount: 'The amount must be a number of dollars with at most 2 decimals',
  topUpMismatch: 'The amount and the credits must be the same',
  /** Admin › Add credit, in admin_add_credit's words. */
  adminCreditAmount: 'The amount must be a positive number of dollars with at most two decimals',
  refundAmount: 'The refund must be a positive number of dollars with at most two decimals',
  refundReasonLong: `The reason must be at most ${REFUND_REASON_MAX} characters`,
  unknownPurchase: 'Purchase not found',
  adminCreditNote: `A note of 1 to ${ADMIN_CREDIT_NOTE_MAX} characters is required`,
  /** Admin › Create user. */
  userExists: 'A user with this email address already exists',
  notAuthenticated: 'User not authenticated',
  purchaseForOther: 'You can only buy credits for yourself',
  accountEmailMismatch: 'The e-mail address does not match your account',
  accountServiceInstalling: 'A service is still installing. Delete your account once it has finished.',
  /** A verified factor not yet passed in this session (aal1): the database and the functions say the same. */
  secondFactorRequired: 'Two-factor sign-in required',
  /** Sign-in and token refresh of an account an admin suspended (auth.users.banned_until). */
  accountSuspended: 'Your account has been suspended. Please contact support.',
  /**
   * A sign-in from a new address while failed sign-ins lock the account. The same words whether
   * the password was right (the link is mailed) or wrong (nothing is), so they tell a guesser nothing.
   */
  newAddressLinkSent: `Too many failed sign-ins on this account, so a new device needs a link we e-mail. If your password was right, we have sent it: open it on this device, on this network, within ${ADDRESS_LINK_MINUTES} minutes.`,
  /** The e-mailed link refused: unknown, used, expired, or opened from another address. */
  addressLinkInvalid: 'This sign-in link is invalid, used or expired, or it was opened on another network. Sign in again on the device you were using.',
  /** The admin's user page (admin_user and the actions beside it), in the database's words. */
  adminUserNotFound: 'User not found',
  adminSelfSuspend: 'You cannot suspend your own account',
  adminSelfRevoke: 'You cannot revoke your own dev access',
  adminSelfDelete: 'You cannot delete your own account here',
  adminNotSuspended: 'This user is not suspended',
  adminSuspendPast: 'The suspension must end in the future',
  adminResetSuspended: 'Reactivate this user before sending a reset link',
  adminDeleteEmailMismatch: 'The e-mail address does not match this account',
  adminDeleteInstalling: 'A service of this user is still installing. Delete the account once it has finished.',
} as const;

/** Deleting an account is confirmed by typing its e-mail; delete_own_account compares the same way. */
export function confirmsAccountEmail(typed: string, accountEmail: string): boolean {
  return typed.trim().toLowerCase() === accountEmail.toLowerCase();
}

// ---------------------------------------------------------------- contact form

export const contactSchema = z.object({
  name: z.string().trim().min(CONTACT_NAME_MIN, messages.contactNameShort).max(CONTACT_NAME_MAX, messages.contactNameLong),
  email: z.string().trim().email(messages.email),
  topic: z.enum(CONTACT_TOPICS, { error: messages.topic }),
  message: z.string().trim().min(CONTACT_MESSAGE_MIN, messages.contactMessageShort).max(CONTACT_MESSAGE_MAX, messages.contactMessageLong),
  // Hidden from people; a bot that fills every field fills this one too.
  honeypot: z.string().max(0, messages.bot).optional().default(''),
});
export type ContactInput = z.input<typeof contactSchema>;

// ---------------------------------------------------------------- accounts

export const signInSchema = z.object({
  email: z.string().trim().min(1, messages.credentialsMissing).email(messages.email),
  password: z.string().min(1, messages.credentialsMissing),
});

/** Longer than the profile keeps (characters, as SQL's char_length counts them). */
export function fullNameTooLong(name: string): boolean {
  return Array.from(name).length > PROFILE_FULL_NAME_MAX;
}

export const signUpSchema = z
  .object({
    email: z.string().trim().email(messages.email),
    password: z.string().min(PASSWORD_MIN, messages.resetPasswordShort),
    confirmPassword: z.string(),
    fullName: z
      .string()
      .trim()
      .min(1, messages.fullNameRequired)
      .refine((v) => !fullNameTooLong(v), messages.fullNameLong),
  })
  .refine((v) => v.password === v.confirmPassword, { message: messages.passwordsMismatch, path: ['confirmPassword'] });

export const resetPasswordSchema = z
  .object({
    password: z.string().min(PASSWORD_MIN, messages.resetPasswordShort),
    confirmPassword: z.string(),
  })
  .refine((v) => v.password === v.confirmPassword, { message: messages.passwordsMismatch, path: ['confirmPassword'] });

/** Settings › change password: the server checks the current password (PUT /user current_password). */
export const changePasswordSchema = z
  .object({
    currentPassword: z.string().min(1, messages.currentPasswordRequired),
    newPassword: z.string().min(PASSWORD_MIN, messages.settingsPasswordShort),
    confirmPassword: z.string(),
  })
  .refine((v) => v.newPassword === v.confirmPassword, { message: messages.passwordsMismatch, path: ['confirmPassword'] });

// ---------------------------------------------------------------- services

/**
 * Lengths count characters (code points), as SQL's char_length does, so that "a😀" is two long on
 * both sides. Whitespace is JavaScript's \s, spelled out so that the SQL can use the same set
 * whatever the database's locale.
 */
const length = (s: string) => Array.from(s).length;
const WHITESPACE = /[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/;

/** The first broken service-name rule, in spec order, or null when the name is valid. */
export function serviceNameError(name: string): string | null {
  if (length(name) < SERVICE_NAME_MIN) return messages.serviceNameShort;
  if (length(name) > SERVICE_NAME_MAX) return messages.serviceNameLong;
  if (WHITESPACE.test(name)) return messages.serviceNameSpaces;
  if (!/^[A-Za-z0-9_-]+$/.test(name)) return messages.serviceNameChars;
  if (/^[-_]|[-_]$/.test(name)) return messages.serviceNameEdges;
  return null;
}

export type KeyValidation = {
  minimum_length?: number;
  maximum_length?: number;
  valid_chars?: string;
  /** The vendor's placeholder ("####-####"): the key's hyphen-separated groups have its groups' lengths. */
  format?: string;
  ends_with?: string;
};

export type ProductProperties = {
  data_name?: string;
  data_description?: string;
  data_validation?: KeyValidation;
};

/** A product's `properties` JSON text; anything that does not parse counts as none (spec §5). */
export function parseProperties(text: string | null | undefined): ProductProperties | null {
  if (!text) return null;
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as ProductProperties) : null;
  } catch {
    return null;
  }
}

/** The key field's label: the plan's data_name, else "API Key" (spec §5). */
export function keyLabel(properties: ProductProperties | null): string {
  const name = properties?.data_name;
  return (typeof name === 'string' && name.trim()) || 'API Key';
}

/**
 * What key messages call the key, so that they match the label: the label's last two words, the
 * second in lower case unless it is an acronym ("Master Node License Key" → "License key",
 * "API Key" → "API key"). private.key_noun in the database says the same.
 */
export function keyNoun(properties: ProductProperties | null): string {
  const words = keyLabel(properties).split(/ +/);
  if (words.length === 1) return words[0]!;
  const last = words[words.length - 1]!;
  return `${words[words.length - 2]!} ${last === last.toUpperCase() ? last : last.toLowerCase()}`;
}

/** "ab-c" → "2,1": what a key and its format must share. */
const groupLengths = (text: string): string => text.split('-').map(length).join(',');

/**
 * The first broken API-key rule, or null when the key is valid: the plan's own rule when its
 * properties define data_validation, else the default rule. `valid_chars` is a regular-expression
 * character class body (e.g. "A-Za-z0-9") that every character must match.
 */
export function apiKeyError(key: string, properties: ProductProperties | null): string | null {
  const field = keyNoun(properties);
  const rule = properties?.data_validation;
  if (!rule) {
    if (length(key) < DEFAULT_API_KEY_MIN || length(key) > DEFAULT_API_KEY_MAX) return messages.apiKeyDefaultLength(field);
    if (WHITESPACE.test(key)) return messages.apiKeySpaces(field);
    if (!key.endsWith(DEFAULT_API_KEY_ENDING)) return messages.apiKeyDefaultEnding(field);
    if (!/^[A-Za-z0-9+/=]+$/.test(key)) return messages.apiKeyChars(field);
    return null;
  }
  if (rule.minimum_length !== undefined && length(key) < rule.minimum_length) return messages.apiKeyMin(rule.minimum_length, field);
  if (rule.maximum_length !== undefined && length(key) > rule.maximum_length) return messages.apiKeyMax(rule.maximum_length, field);
  if (rule.valid_chars !== undefined && !new RegExp(`^[${rule.valid_chars}]*$`).test(key)) {
    return properties?.data_description || messages.apiKeyChars(field);
  }
  if (rule.format !== undefined && groupLengths(key) !== groupLengths(rule.format)) return messages.apiKeyFormat(rule.format, field);
  if (rule.ends_with !== undefined && !key.endsWith(rule.ends_with)) return messages.apiKeyEnding(rule.ends_with, field);
  return null;
}

/** The name field's one message, as spec §5 orders them: required, the first broken rule, taken. */
export function serviceNameMessage(name: string, takenNames: readonly string[] = []): string | null {
  if (name.trim() === '') return messages.serviceNameRequired;
  return serviceNameError(name) ?? (takenNames.some((n) => n.toLowerCase() === name.toLowerCase()) ? messages.serviceNameTaken : null);
}

/** The key field's one message: required, else the plan's rule, both in the words of its label. */
export function apiKeyMessage(key: string, properties: ProductProperties | null): string | null {
  return key === '' ? messages.apiKeyRequired(keyNoun(properties)) : apiKeyError(key, properties);
}

/** A string field whose one message, or none, `message` gives. */
const fieldOf = (message: (value: string) => string | null) =>
  z.string().superRefine((value, ctx) => {
    const problem = message(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/** A service's name: the rename form's and the create form's; `takenNames` are the user's other services'. */
export const serviceNameSchema = (takenNames: readonly string[]) => fieldOf((name) => serviceNameMessage(name, takenNames));

/** A service's key under the rules of its plan's `properties`. */
export const apiKeySchema = (properties: ProductProperties | null) => fieldOf((key) => apiKeyMessage(key, properties));

/** Change key's field: a key under its plan's rules, and not the one the service has (`currentKey`). */
export const newKeySchema = (properties: ProductProperties | null, currentKey: string) =>
  fieldOf((key) => apiKeyMessage(key, properties) ?? (key === currentKey ? messages.sameKey : null));

/**
 * The New Service form's fields, under the chosen plan's key rules. Funding is not a field's: the
 * form shows it as one alert, and create_service_securely checks it again.
 */
export const createServiceSchema = ({ properties, existingNames }: { properties: ProductProperties | null; existingNames: readonly string[] }) =>
  z.object({
    name: serviceNameSchema(existingNames),
    // A radio group with none checked reads as null.
    productId: z.string({ error: messages.planRequired }).min(1, messages.planRequired),
    apiKey: apiKeySchema(properties),
  });
export type CreateServiceValues = z.input<ReturnType<typeof createServiceSchema>>;

export type CreateServiceInput = {
  loggedIn: boolean;
  name: string;
  apiKey: string;
  productId: string | null;
  properties: ProductProperties | null;
  /** Names of the user's services that are not deleted: a new name must differ, whatever its case. */
  existingNames?: readonly string[];
  /** Price of the chosen plan, balance, and whether an unused purchased service of it exists. */
  price: number;
  balance: number;
  reusableAvailable: boolean;
};

/**
 * Spec §5 "Create submit checks", in their order: the first failing message, or null. It is the
 * order create_service_securely answers in (test/domain/validation-agreement.test.ts); the form
 * shows the same rules field by field (createServiceSchema) and holds submit until all pass.
 */
export function createServiceError(i: CreateServiceInput): string | null {
  if (!i.loggedIn) return messages.notLoggedIn;
  const nameMessage = serviceNameMessage(i.name, i.existingNames);
  if (nameMessage) return nameMessage;
  // Before a plan is chosen its properties are null and the key is an "API key".
  if (i.apiKey === '') return messages.apiKeyRequired(keyNoun(i.properties));
  if (!i.productId) return messages.planRequired;
  if (apiKeyError(i.apiKey, i.properties)) return messages.apiKeyInvalid(keyNoun(i.properties));
  if (!canFund(i)) return messages.insufficientFunds;
  return null;
}

/** Spec §5 funding rule. */
export function canFund(i: Pick<CreateServiceInput, 'price' | 'balance' | 'reusableAvailable'>): boolean {
  return i.reusableAvailable || i.price <= 0 || i.balance >= i.price;
}

// ---------------------------------------------------------------- extension and top-up

/** The month choices a product offers when extending (spec §9). */
export function extendMonthChoices(renewInterval: string | null): number[] {
  if (renewInterval === MONTHLY_INTERVAL) return Array.from({ length: EXTEND_MONTHLY_MAX_MONTHS }, (_, i) => i + 1);
  return Array.from({ length: EXTEND_QUARTERLY_MAX_UNITS }, (_, i) => (i + 1) * EXTEND_QUARTER_MONTHS);
}

/** What an extension costs: the price is per renewal interval, so a quarterly unit costs one price. */
export function extendCost(price: number, renewInterval: string | null, months: number): number {
  const units = renewInterval === MONTHLY_INTERVAL ? months : months / EXTEND_QUARTER_MONTHS;
  return Math.round(price * units * 100) / 100;
}

/** Admin › Add credit: each field's message, or null; admin_add_credit checks the same. */
export function adminCreditErrors(amount: number, note: string): { amount: string | null; note: string | null } {
  return {
    amount: isCreditAmount(amount) ? null : messages.adminCreditAmount,
    note: note.trim() === '' || Array.from(note).length > ADMIN_CREDIT_NOTE_MAX ? messages.adminCreditNote : null,
  };
}

/** A positive number of whole cents. */
function isCreditAmount(amount: number): boolean {
  // 0.07 * 100 is 7.000000000000001 in floating point: whole cents within a rounding error.
  return Number.isFinite(amount) && amount > 0 && Math.abs(amount * 100 - Math.round(amount * 100)) < 1e-6;
}

/**
 * Admin › Refund (the refund-purchase function's body): what is left to refund of the purchase is
 * the database's to check (private.begin_refund), against the rows it locks.
 */
export const refundPurchaseSchema = z.object({
  purchase_id: z.string().refine(isUuid, messages.unknownPurchase),
  // No purchase is larger than a top-up: a larger number is no refund (and no bigint of cents).
  amount: z.number({ error: messages.refundAmount }).refine((n) => isCreditAmount(n) && n <= TOP_UP_MAX, messages.refundAmount),
  reason: z.string().trim().max(REFUND_REASON_MAX, messages.refundReasonLong).optional().default(''),
});
export type RefundPurchaseInput = z.input<typeof refundPurchaseSchema>;

/** private.begin_refund's refusal of more than is left, in the same words. */
export const refundTooMuchMessage = (left: number) => `At most $${left.toFixed(2)} of this purchase can be refunded`;

/** Admin › Refund: each field's message, or null, for a purchase with `refundable` dollars left. */
export function refundErrors(amount: number, reason: string, refundable: number): { amount: string | null; reason: string | null } {
  const parsed = refundPurchaseSchema.safeParse({ purchase_id: '00000000-0000-4000-8000-000000000000', amount, reason });
  const issue = (field: string) => (parsed.success ? null : (parsed.error.issues.find((i) => i.path[0] === field)?.message ?? null));
  return {
    amount: issue('amount') ?? (Math.round(amount * 100) > Math.round(refundable * 100) ? refundTooMuchMessage(refundable) : null),
    reason: issue('reason'),
  };
}

/** A UUID as PostgreSQL writes it, in either case. */
export function isUuid(s: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s);
}

/**
 * Admin › Create user (the admin-create-user function's body): the sign-up's rules for the
 * address, name and password, Add credit's for the optional initial credit (below numeric(12,2)'s
 * ceiling). The server adds GoTrue's own checks (a common password, at most 72 bytes).
 */
export const adminCreateUserSchema = z.object({
  email: z.string().trim().email(messages.email),
  full_name: z
    .string()
    .trim()
    .min(1, messages.fullNameRequired)
    .refine((v) => !fullNameTooLong(v), messages.fullNameLong),
  password: z.string().min(PASSWORD_MIN, messages.resetPasswordShort),
  admin: z.boolean().optional().default(false),
  credits: z
    .number({ error: messages.adminCreditAmount })
    .refine((n) => isCreditAmount(n) && n < ADMIN_CREDIT_MAX, messages.adminCreditAmount)
    .nullish(),
});
export type AdminCreateUserInput = z.input<typeof adminCreateUserSchema>;

/** A top-up in dollars; `typeMessage` is what a value that is not a number reads. */
const topUpAmount = (typeMessage: string) =>
  z.number({ error: typeMessage }).min(TOP_UP_MIN, messages.topUpMin).max(TOP_UP_MAX, messages.topUpMax).multipleOf(TOP_UP_STEP, messages.topUpAmount);

/** The add-funds form: an empty custom amount reads as below the minimum. */
export const topUpSchema = z.object({ amount: topUpAmount(messages.topUpMin) });

/**
 * The purchase-credits body of spec §7: the dashboard sends the amount twice. user_id is checked
 * against the caller by the function, never trusted.
 */
export const purchaseCreditsSchema = z
  .object({
    amount: topUpAmount(messages.topUpAmount),
    credits_amount: z.number({ error: messages.topUpAmount }),
    user_id: z.string().nullish(),
    /** Left out: PayPal (or the test provider); 'crypto': the crypto processor's invoice (decision 050). */
    method: z.literal('crypto', { error: messages.unknownPaymentMethod }).optional(),
  })
  .refine((b) => Math.round(b.amount * 100) === Math.round(b.credits_amount * 100), {
    message: messages.topUpMismatch,
    path: ['credits_amount'],
  });

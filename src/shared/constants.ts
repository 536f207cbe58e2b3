/** Business constants of spec §9, used by the web app, the server and (as literals) the SQL. */

export const SERVICE_NAME_MIN = 3;
export const SERVICE_NAME_MAX = 16;

export const DEFAULT_API_KEY_MIN = 44;
export const DEFAULT_API_KEY_MAX = 46;
export const DEFAULT_API_KEY_ENDING = '=';

export const PASSWORD_MIN = 8;
/** zxcvbn's score a password needs (0-4): 3 is "safely unguessable", about 10^10 guesses. */
export const PASSWORD_MIN_SCORE = 3;
/** The site's name: a password made of it is among the first guesses. */
export const SITE_NAME = 'NodeHarbor';

/** A profile's text fields, as public.profiles' check constraints limit them (characters). */
export const PROFILE_FULL_NAME_MAX = 200;
export const PROFILE_COMPANY_MAX = 200;
export const PROFILE_COMPANY_VAT_MAX = 50;

export const CONTACT_NAME_MIN = 2;
export const CONTACT_NAME_MAX = 100;
export const CONTACT_MESSAGE_MIN = 10;
export const CONTACT_MESSAGE_MAX = 1000;
export const CONTACT_TOPICS = ['sales', 'support'] as const;

export const TOP_UP_PRESETS = [5, 10, 25, 50, 100] as const;
export const TOP_UP_MIN = 1;
export const TOP_UP_STEP = 0.01;
/** Our own ceiling per purchase: a typo of extra zeros should not reach the payment provider. */
export const TOP_UP_MAX = 10_000;

/** An admin's credit is below this, as numeric(12,2) holds (admin_add_credit, addCredits). */
export const ADMIN_CREDIT_MAX = 10_000_000_000;
/** The note an admin gives with added credit, shown in the user's billing history. */
export const ADMIN_CREDIT_NOTE_MAX = 500;
/** A refund's reason, as credit_refunds.reason takes it. */
export const REFUND_REASON_MAX = 500;

/** Monthly products extend by 1 to 6 months; others (quarterly) by 1 or 2 units of 3 months. */
export const MONTHLY_INTERVAL = '1 MONTH';
export const EXTEND_MONTHLY_MAX_MONTHS = 6;
export const EXTEND_QUARTER_MONTHS = 3;
export const EXTEND_QUARTERLY_MAX_UNITS = 2;

export const TRANSACTIONS_LOADED = 50;
export const TRANSACTIONS_SHOWN = 5;
export const PURCHASES_LOADED = 20;

export const KEY_MASK_VISIBLE = 4;

/** Spec §9 delays, shown in the payment-processing dialog. */
export const PAYMENT_CREDIT_SECONDS = 120;
export const PAYMENT_APPROVAL_HOURS = 48;
export const PAYMENT_REFUND_DAYS = 2;
export const INSTALL_MINUTES = 10;

export const QUERY_STALE_MS = 5 * 60 * 1000;
export const QUERY_GC_MS = 10 * 60 * 1000;

export const REGISTER_LOADING_MS = 100;
export const MOBILE_BREAKPOINT_PX = 768;
export const MOBILE_MENU_MAX_HEIGHT_PX = 500;

export const LANGUAGES = ['en-US', 'en-GB', 'es', 'fr', 'de'] as const;
export const TIME_ZONES = ['UTC', 'America/New_York', 'America/Los_Angeles', 'Europe/London', 'Europe/Berlin', 'Asia/Tokyo', 'Australia/Sydney'] as const;

export const FOUNDING_YEAR = 2024;

/** Days a service the balance could not renew stays suspended before it is terminated (SUSPENSION_DAYS overrides it). */
export const SUSPENSION_DAYS = 14;

/** A service's life, one state (public.service_state, migrations 0014 and 0028). */
export type ServiceState = 'installing' | 'active' | 'failed' | 'suspended' | 'expired' | 'deleting' | 'deleted';

/** Recovery codes for two-factor sign-in, made (and replaced) ten at a time. */
export const RECOVERY_CODE_COUNT = 10;

/** The longest name a user may give an authenticator app (the server takes up to 255). */
export const AUTHENTICATOR_NAME_MAX = 64;

/**
 * Signing in from a new address while failed sign-ins lock the account: the error code of the
 * answer (ours; GoTrue has none), the fragment parameter of the e-mailed link that lets the
 * address in, and how long that link works.
 */
export const NEW_ADDRESS_LINK_CODE = 'new_address_link_required';
export const ADDRESS_LINK_PARAM = 'address_token';
export const ADDRESS_LINK_MINUTES = 15;

import ipaddr from 'ipaddr.js';
import { z } from 'zod';

/**
 * Customers' API tokens (issue 37, items 4 and 5; migration 0055): their scopes, format and limits,
 * and the words of Settings › API tokens and of the API's refusals, once.
 */

export const API_SCOPES = ['services:read', 'services:write', 'billing:read'] as const;
export type ApiScope = (typeof API_SCOPES)[number];

export const API_SCOPE_LABELS: Record<ApiScope, string> = {
  'services:read': 'Read services, their logs and uptime',
  'services:write': 'Create, rename, extend, delete and restart services',
  'billing:read': 'Read the balance and the ledger',
};

/** Every token starts with it, so that secret scanners can match a leaked one. */
export const API_TOKEN_PREFIX = 'nhp_';
/** Tokens one customer may hold (revoked and expired ones not counted). */
export const MAX_API_TOKENS = 20;
export const API_TOKEN_NAME_MAX = 60;
/** Addresses or CIDR ranges in one token's allow-list. */
export const MAX_ALLOWED_IPS = 20;
/** Requests one token may make within any minute. */
export const API_TOKEN_REQUESTS_PER_MINUTE = 120;

/** The expiries Settings offers, in days; null: never. */
export const API_TOKEN_EXPIRY_DAYS = [7, 30, 90, 365, null] as const;

/** A token: the prefix, 30 random base62 characters, then their CRC32 in 6 base62 characters. */
export const API_TOKEN_PATTERN = /^nhp_[0-9A-Za-z]{36}$/;
/** How many characters of a token are kept to tell it apart in the list: `nhp_` and 8 more. */
export const API_TOKEN_DISPLAY_PREFIX_LENGTH = 12;

/** Every word of token creation, revocation and the API's refusals; SQL raises them word for word. */
export const apiTokenMessages = {
  nameRequired: 'Give the token a name',
  nameTooLong: `The name may be at most ${API_TOKEN_NAME_MAX} characters`,
  scopesRequired: 'Choose at least one scope',
  scopeUnknown: 'Unknown scope',
  expiryInvalid: 'Choose an expiry of 7, 30, 90 or 365 days, or none',
  tooManyAllowedIps: `At most ${MAX_ALLOWED_IPS} addresses or ranges`,
  allowedIpInvalid: (entry: string) => `"${entry}" is not an IPv4 or IPv6 address or CIDR range`,
  tooManyTokens: `You can have at most ${MAX_API_TOKENS} API tokens: revoke one first`,
  tokenNotFound: 'API token not found',
  tooManyCreations: (minutes: number) => `Too many tokens made: try again in ${minutes} minutes`,
  /** Raised by SQL for a caller holding an API token, whatever else it asks. */
  notWithApiToken: 'An API token cannot change the password, second factors, API tokens or e-mail address',
  /** GoTrue's answer to an API token: it is no session. */
  onlyOnApi: 'An API token works only on /api/v1, not as a session',
  missingToken: 'An API token is required: send it as Authorization: Bearer nhp_…',
  invalidToken: 'This API token is not valid: it may be mistyped, revoked or expired',
  ipNotAllowed: 'This API token may not be used from this address',
  rateLimited: (seconds: number) => `At most ${API_TOKEN_REQUESTS_PER_MINUTE} requests a minute per token: try again in ${seconds} s`,
  insufficientScope: (scope: ApiScope) => `This API token lacks the ${scope} scope`,
};

/**
 * One allow-list entry in its canonical form (an address, or a range by its network address), or
 * undefined when it is neither an IPv4 or IPv6 address nor a CIDR range.
 */
export function normaliseAllowedIp(entry: string): string | undefined {
  const m = /^([^/%]+)(?:\/(\d{1,3}))?$/.exec(entry.trim());
  if (!m) return undefined;
  const [, address = '', bits] = m;
  const v6 = address.includes(':');
  // Only the dotted four-part form of IPv4: ipaddr.js also reads 10.1 or 0x0a000001, which nobody means here.
  if (v6 ? !ipaddr.IPv6.isValid(address) : !ipaddr.IPv4.isValidFourPartDecimal(address)) return undefined;
  // ipaddr.process: an IPv4-mapped address (::ffff:10.0.0.1) is the IPv4 address clients are matched as.
  // A range of one address is that address, so that the list holds it once.
  if (bits === undefined || Number(bits) === (v6 ? 128 : 32)) return ipaddr.process(address).toString();
  if (Number(bits) > (v6 ? 128 : 32)) return undefined;
  // The range by its network address, as PostgreSQL's cidr keeps it (10.1.2.3/8 → 10.0.0.0/8).
  const cidr = `${address}/${bits}`;
  const network = v6 ? ipaddr.IPv6.networkAddressFromCIDR(cidr) : ipaddr.IPv4.networkAddressFromCIDR(cidr);
  return `${network.toString()}/${bits}`;
}

/** The entries of the form's textarea: one a line, or separated by commas or spaces. */
export const allowedIpEntries = (text: string): string[] => text.split(/[\s,]+/).filter(Boolean);

/** The entries normalised, or the message that refuses the list. */
export function checkAllowedIps(entries: readonly string[]): { ips: string[] } | { error: string } {
  if (entries.length > MAX_ALLOWED_IPS) return { error: apiTokenMessages.tooManyAllowedIps };
  const ips: string[] = [];
  for (const entry of entries) {
    const ip = normaliseAllowedIp(entry);
    if (!ip) return { error: apiTokenMessages.allowedIpInvalid(entry.slice(0, 60)) };
    if (!ips.includes(ip)) ips.push(ip);
  }
  return { ips };
}

/** Whether `address` (the client's, as the server resolved it) falls within one of the entries. */
export function ipAllowed(address: string, allowed: readonly string[]): boolean {
  let client: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // An IPv4-mapped IPv6 address (::ffff:10.0.0.1) counts as its IPv4 address.
    client = ipaddr.process(address.replace(/%.*$/, ''));
  } catch {
    return false;
  }
  return allowed.some((entry) => {
    const range = entry.includes('/') ? ipaddr.parseCIDR(entry) : ([ipaddr.parse(entry), entry.includes(':') ? 128 : 32] as const);
    return range[0].kind() === client.kind() && client.match(range as [typeof client, number]);
  });
}

/** The body of POST /functions/v1/api-token, and the form's rules. */
export const createApiTokenSchema = z.object({
  name: z.string({ error: apiTokenMessages.nameRequired }).trim().min(1, apiTokenMessages.nameRequired).max(API_TOKEN_NAME_MAX, apiTokenMessages.nameTooLong),
  scopes: z
    .array(z.enum(API_SCOPES, { error: apiTokenMessages.scopeUnknown }), { error: apiTokenMessages.scopesRequired })
    .min(1, apiTokenMessages.scopesRequired)
    .max(API_SCOPES.length * 2, apiTokenMessages.scopeUnknown),
  expiresInDays: z
    .union([z.literal(7), z.literal(30), z.literal(90), z.literal(365), z.null()], { error: apiTokenMessages.expiryInvalid })
    .optional()
    .transform((v) => v ?? null),
  allowedIps: z
    .array(z.string({ error: apiTokenMessages.allowedIpInvalid('') }), { error: apiTokenMessages.tooManyAllowedIps })
    .optional()
    .transform((entries, ctx) => {
      const checked = checkAllowedIps(entries ?? []);
      if ('ips' in checked) return checked.ips;
      ctx.addIssue({ code: 'custom', message: checked.error });
      return z.NEVER;
    }),
});
export type CreateApiToken = z.input<typeof createApiTokenSchema>;

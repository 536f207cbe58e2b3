import { errors, jwtVerify, SignJWT } from 'jose';
import { LRUCache } from 'lru-cache';

export type JwtClaims = {
  iss?: string;
  sub?: string;
  aud?: string | string[];
  exp?: number;
  iat?: number;
  role?: string;
  session_id?: string;
  [k: string]: unknown;
};

/** The secrets every server process shares: the HS256 signing key and the API keys derived from it. */
export type Keys = {
  jwtSecret: Uint8Array;
  /** Long-lived JWT with role anon: the public "anon key" the browser sends as `apikey`. */
  anonKey: string;
  /** Long-lived JWT with role service_role: for trusted server-side callers only. */
  serviceRoleKey: string;
  issuer: string;
};

const TEN_YEARS = 10 * 365 * 24 * 3600;
/** The audience of every access token, as GoTrue's JWT.Aud is on Supabase (supabase-wire §2.6). */
const JWT_AUDIENCE = 'authenticated';
/** The issuer of the API keys, as in Supabase's own anon and service_role keys. */
const API_KEY_ISSUER = 'supabase';

/** Signs a JWT the way GoTrue does: HS256, `typ: JWT`, `aud` as a single string. */
export function signJwt(keys: Pick<Keys, 'jwtSecret'>, claims: JwtClaims): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(keys.jwtSecret);
}

export async function createKeys(secret: string, issuer: string): Promise<Keys> {
  const jwtSecret = new TextEncoder().encode(secret);
  // Fixed iat so that the keys are the same on every start and in every process.
  const iat = 1735689600;
  const anonKey = await signJwt({ jwtSecret }, { iss: API_KEY_ISSUER, role: 'anon', iat, exp: iat + TEN_YEARS });
  const serviceRoleKey = await signJwt({ jwtSecret }, { iss: API_KEY_ISSUER, role: 'service_role', iat, exp: iat + TEN_YEARS });
  return { jwtSecret, anonKey, serviceRoleKey, issuer };
}

/**
 * Why a token was refused; `expired`, `issuer` and `audience` are told apart because GoTrue and
 * PostgREST word them differently.
 */
export class JwtError extends Error {
  constructor(
    message: string,
    readonly reason: 'malformed' | 'signature' | 'expired' | 'claims' | 'issuer' | 'audience',
  ) {
    super(message);
    this.name = 'JwtError';
  }
}

const CLOCK_TOLERANCE = 30;
/** Bytes the verified tokens of one key may take: a flood of fresh tokens can cost no more memory. */
export const VERIFIED_CACHE_BYTES = 8 * 1024 * 1024;

type VerifiedCache = LRUCache<string, JwtClaims>;

/**
 * Tokens whose signature was verified, per key, least recently used dropped first. A browser sends
 * the same access token with every request for its whole life, and verifying it again is most of
 * what a simple REST read costs in this process (bench/README.md). A token is immutable, so only
 * its expiry is checked again. Sized by bytes (UTF-16: two per character), not by count, since a
 * token's size is up to whoever signs it in and its user's metadata.
 */
const verified = new WeakMap<Uint8Array, VerifiedCache>();

function cacheFor(secret: Uint8Array): VerifiedCache {
  let cache = verified.get(secret);
  if (!cache) {
    cache = new LRUCache<string, JwtClaims>({
      maxSize: VERIFIED_CACHE_BYTES,
      sizeCalculation: (claims, token) => 2 * (token.length + JSON.stringify(claims).length),
    });
    verified.set(secret, cache);
  }
  return cache;
}

/** What the verified-token cache of a key holds now, in bytes, for tests and benchmarks. */
export function verifiedCacheBytes(keys: Pick<Keys, 'jwtSecret'>): number {
  return verified.get(keys.jwtSecret)?.calculatedSize ?? 0;
}

/**
 * The two kinds of token we sign, and no other: an access token, with GoTrue's audience and this
 * site's issuer, and an API key in Supabase's format (iss "supabase", no sub, no aud). A token
 * signed with our key for anything else (another service sharing JWT_SECRET, a site moved to
 * another PUBLIC_URL) is refused.
 */
function checkIssuerAndAudience(claims: JwtClaims, issuer: string): void {
  if (claims.aud === undefined && claims.sub === undefined) {
    if (claims.iss !== API_KEY_ISSUER) throw new JwtError('JWT issuer is not accepted', 'issuer');
    return;
  }
  // GoTrue compares the first audience (api/user.go), PostgREST any; ours sign exactly one.
  const audience = Array.isArray(claims.aud) ? claims.aud[0] : claims.aud;
  if (audience !== JWT_AUDIENCE) throw new JwtError('JWT not in audience', 'audience');
  if (claims.iss !== issuer) throw new JwtError('JWT issuer is not accepted', 'issuer');
}

/**
 * Verifies an HS256 JWT that has an expiry, with a 30 s clock skew (as PostgREST allows), and is
 * an access token of this site or one of its API keys (checkIssuerAndAudience).
 */
export async function verifyJwt(keys: Pick<Keys, 'jwtSecret' | 'issuer'>, token: string): Promise<JwtClaims> {
  const parts = token.split('.').length;
  if (parts !== 3) throw new JwtError(`Expected 3 parts in JWT; got ${parts}`, 'malformed');
  const cache = cacheFor(keys.jwtSecret);
  const known = cache.get(token);
  if (known) {
    if (typeof known.exp === 'number' && known.exp <= Math.floor(Date.now() / 1000) - CLOCK_TOLERANCE) {
      cache.delete(token);
      throw new JwtError('JWT expired', 'expired');
    }
    return { ...known };
  }
  let claims: JwtClaims;
  try {
    // Every token we mint expires (the API keys after ten years): one that never does is refused.
    const { payload } = await jwtVerify(token, keys.jwtSecret, { algorithms: ['HS256'], clockTolerance: CLOCK_TOLERANCE, requiredClaims: ['exp'] });
    claims = payload as JwtClaims;
  } catch (e) {
    if (e instanceof errors.JWTExpired) throw new JwtError('JWT expired', 'expired');
    if (e instanceof errors.JWTClaimValidationFailed) throw new JwtError(e.message, 'claims');
    if (e instanceof errors.JWSSignatureVerificationFailed || e instanceof errors.JOSEAlgNotAllowed) {
      throw new JwtError('JWT cryptographic operation failed', 'signature');
    }
    throw new JwtError('JWT cryptographic operation failed', 'malformed');
  }
  // Checked before caching: the cache holds only tokens that passed, and one key has one issuer.
  checkIssuerAndAudience(claims, keys.issuer);
  cache.set(token, claims);
  return { ...claims };
}

/**
 * supabase-js's errors keep the status but not the response's headers, so a rate-limited answer's
 * Retry-After is caught on its way in: fetchRememberingRetryAfter is the client's fetch. It also
 * sends again, after a moment, a request whose answer says it took no effect.
 */
let lastWait: { until: number } | null = null;

/** Retry-After as seconds or as an HTTP date (RFC 9110 §10.2.3); null when absent or unreadable. */
function waitMs(header: string | null, now: number): number | null {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * The REST answers whose statement never ran (the caller's own share or the pool stayed busy) or
 * ran and was rolled back (a lock or statement timeout): sending the same request again is safe,
 * even for a write (src/server/db/db-failure.ts). A rate limit, or a database out of reach (which
 * may have committed before the answer was lost), is not among them.
 */
const NEVER_TOOK_EFFECT = new Set(['429 PGRST003', '503 PGRST003', '409 55P03', '504 57014']);
/** A passing contention is sent again this often, each after its Retry-After (at most MAX_RETRY_WAIT_MS), before the person sees it. */
export const PASSING_RETRIES = 2;
const MAX_RETRY_WAIT_MS = 3000;

async function neverTookEffect(res: Response): Promise<boolean> {
  if (![409, 429, 503, 504].includes(res.status)) return false;
  const body = (await res
    .clone()
    .json()
    .catch(() => null)) as { code?: unknown } | null;
  return NEVER_TOOK_EFFECT.has(`${res.status} ${String(body?.code)}`);
}

export const fetchRememberingRetryAfter: typeof fetch = async (input, init) => {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(input, init);
    const now = Date.now();
    const ms = waitMs(res.headers.get('Retry-After'), now);
    if (attempt < PASSING_RETRIES && (await neverTookEffect(res))) {
      await new Promise((r) => setTimeout(r, Math.min(ms ?? 1000, MAX_RETRY_WAIT_MS)));
      continue;
    }
    if (res.status === 429) lastWait = ms === null ? null : { until: now + ms };
    return res;
  }
};

/** Seconds left of the wait the last 429 asked for, or null when it named none. */
export function retryAfterSeconds(now = Date.now()): number | null {
  return lastWait ? Math.max(0, Math.ceil((lastWait.until - now) / 1000)) : null;
}

/** "45 seconds", "5 minutes": how long a rate-limited person waits, rounded up to whole minutes past one. */
function waitText(seconds: number): string {
  if (seconds < 60) return `${seconds} ${seconds === 1 ? 'second' : 'seconds'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} ${minutes === 1 ? 'minute' : 'minutes'}`;
}

/** What a 429 tells the person: when to try again, from the answer's Retry-After, when it gave one. */
export function rateLimitText(seconds: number | null): string {
  return seconds === null ? 'Too many attempts. Please try again later.' : `Too many attempts. Please try again in ${waitText(seconds)}.`;
}

/**
 * supabase-js's errors keep the status but not the response's headers, so a rate-limited answer's
 * Retry-After is caught on its way in: fetchRememberingRetryAfter is the client's fetch.
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

export const fetchRememberingRetryAfter: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  if (res.status === 429) {
    const now = Date.now();
    const ms = waitMs(res.headers.get('Retry-After'), now);
    lastWait = ms === null ? null : { until: now + ms };
  }
  return res;
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

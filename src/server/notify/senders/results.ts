import type { IncomingHttpHeaders } from 'node:http';
import { deliveryErrors } from '../../../shared/notifications';
import { OutboundError } from '../../outbound/outbound-client';
import type { SendResult } from '../channel-sender';

/** The longest wait a service's Retry-After or retry_after is taken for (an hour); longer ones are cut to it. */
const MAX_RETRY_AFTER_SECONDS = 3600;

export const failed = (error: string, status: number | null, retry: boolean, retryAfterSeconds?: number): SendResult =>
  retryAfterSeconds === undefined ? { ok: false, status, error, retry } : { ok: false, status, error, retry, retryAfterSeconds };

/**
 * A request that was refused or got no answer: a refused address or a bad URL never succeeds, while
 * a timeout, a broken connection or a name DNS did not resolve this time may.
 */
export function fromRequestError(e: unknown): SendResult {
  if (!(e instanceof OutboundError)) throw e;
  switch (e.reason) {
    case 'refused':
      return failed(deliveryErrors.refused, null, false);
    case 'form':
      return failed(deliveryErrors.badUrl, null, false);
    case 'unresolvable':
      return failed(deliveryErrors.unresolvable, null, true);
    case 'timeout':
      return failed(deliveryErrors.timeout, null, true);
    case 'network':
      return failed(deliveryErrors.network, null, true);
  }
}

/** Seconds from a number (Discord's and Telegram's retry_after) or a Retry-After header in seconds, rounded up and bounded. */
export function retryAfterSeconds(value: unknown, headers?: IncomingHttpHeaders): number | undefined {
  const fromHeader = headers?.['retry-after'];
  const n = typeof value === 'number' ? value : fromHeader !== undefined && /^\d+(\.\d+)?$/.test(fromHeader.trim()) ? Number(fromHeader) : undefined;
  if (n === undefined || !Number.isFinite(n) || n < 0) return undefined;
  return Math.min(Math.ceil(n), MAX_RETRY_AFTER_SECONDS);
}

/** A redirect is never followed (decision 043): the attempt failed, and the next would get the same answer. */
export const isRedirect = (status: number) => status >= 300 && status < 400;

/** JSON of an answer's body, or undefined when it is not JSON (or was cut). */
export function jsonOf(body: string, truncated: boolean): unknown {
  if (truncated) return undefined;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

/** `s` within `max` UTF-16 units (as Discord and Telegram count), cut with "…" and never through a surrogate pair. */
export function cutText(s: string, max: number): string {
  if (s.length <= max) return s;
  let end = Math.max(0, max - 1);
  if (end > 0 && /[\uD800-\uDBFF]/.test(s[end - 1]!)) end--;
  return `${s.slice(0, end)}…`;
}

import { NEW_ADDRESS_LINK_CODE } from '@shared/constants';
import { rateLimitText, retryAfterSeconds } from '@/lib/retry-after';
import { toast } from '@/lib/toast';

/**
 * Spec §8: auth errors are shown in a toast titled "Authentication Error" with the message. A
 * rate-limited request (429) says instead when to try again, unless it is a sign-in from a new
 * address that an e-mailed link lets through: its message says so.
 */
export function showAuthError(error: unknown): void {
  const { status, code } = (error ?? {}) as { status?: unknown; code?: unknown };
  if (status === 429 && code !== NEW_ADDRESS_LINK_CODE) return toast.error('Authentication Error', rateLimitText(retryAfterSeconds()));
  const message =
    error instanceof Error ? error.message : typeof error === 'object' && error && 'message' in error ? String(error.message) : 'An unknown error occurred';
  toast.error('Authentication Error', message);
}

import { rateLimitText, retryAfterSeconds } from '@/lib/retry-after';
import { toast } from '@/lib/toast';

/**
 * Spec §8: auth errors are shown in a toast titled "Authentication Error" with the message. A
 * rate-limited request (429) says instead when to try again.
 */
export function showAuthError(error: unknown): void {
  if ((error as { status?: unknown } | null)?.status === 429) return toast.error('Authentication Error', rateLimitText(retryAfterSeconds()));
  const message =
    error instanceof Error ? error.message : typeof error === 'object' && error && 'message' in error ? String(error.message) : 'An unknown error occurred';
  toast.error('Authentication Error', message);
}

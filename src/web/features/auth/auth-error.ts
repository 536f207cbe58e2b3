import { toast } from '@/lib/toast';

/** Spec §8: auth errors are shown in a toast titled "Authentication Error" with the message. */
export function showAuthError(error: unknown): void {
  const message = error instanceof Error ? error.message : typeof error === 'object' && error && 'message' in error ? String(error.message) : 'An unknown error occurred';
  toast.error('Authentication Error', message);
}

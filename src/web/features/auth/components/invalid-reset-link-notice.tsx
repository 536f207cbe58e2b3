import { useLocation } from 'react-router';
import { useHydrated } from '@/lib/deferred-hydration';

/** The router state /reset-password-confirm leaves when it sends an unusable link here. */
export const INVALID_RESET_LINK_STATE = { invalidResetLink: true } as const;

/**
 * Spec §8: "Invalid reset link" and its text, shown above the form that asks for a new link. Only
 * once the page runs: the prerendered page knows nothing of the router state.
 */
export function InvalidResetLinkNotice() {
  const state: unknown = useLocation().state;
  const hydrated = useHydrated();
  if (!hydrated || (state as { invalidResetLink?: unknown } | null)?.invalidResetLink !== true) return null;
  return (
    <div role="alert" className="mb-6 rounded-lg border border-destructive/50 p-4 text-sm">
      <p className="font-semibold text-destructive">Invalid reset link</p>
      <p className="mt-1">This password reset link is invalid or has expired. Please request a new one.</p>
    </div>
  );
}

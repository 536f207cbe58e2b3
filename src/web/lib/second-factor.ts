import type { Session } from '@supabase/supabase-js';

/** The `aal` claim of the access token: aal2 once a second factor was verified in this session. */
function sessionAal(session: Session): string | undefined {
  try {
    const payload = session.access_token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/');
    return (JSON.parse(atob(payload)) as { aal?: string }).aal;
  } catch {
    return undefined;
  }
}

/**
 * True when the user has a verified factor but this session has not passed it yet: the session
 * may only finish signing in (GoTrue's nextLevel aal2 while currentLevel is aal1).
 */
export function needsSecondFactor(session: Session): boolean {
  const verified = session.user.factors?.some((f) => f.status === 'verified') ?? false;
  return verified && sessionAal(session) !== 'aal2';
}

import type { Session } from '@supabase/supabase-js';
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import { getSupabase, hasStoredSession, onSupabaseReady } from '@/lib/supabase';

export type AuthState = { status: 'loading' } | { status: 'signed-out' } | { status: 'signed-in'; session: Session };

const AuthContext = createContext<AuthState>({ status: 'loading' });

/**
 * The session as supabase-js reports it (spec §4: loading, then signed out or signed in).
 * With no stored session the library is not even loaded: the visitor is signed out.
 */
export function AuthProvider({ children }: { children: ReactNode }) {
  // The prerendered page is rendered as "loading", which shows the same markup as signed out.
  const [state, setState] = useState<AuthState>(() => (typeof window === 'undefined' || hasStoredSession() ? { status: 'loading' } : { status: 'signed-out' }));
  useEffect(() => {
    let unsubscribe: (() => void) | undefined;
    const stop = onSupabaseReady((supabase) => {
      unsubscribe?.();
      // INITIAL_SESSION arrives first, then every later change (sign-in, refresh, sign-out, recovery).
      const { data } = supabase.auth.onAuthStateChange((_event, session) => {
        // Signed out again is no change: a new object would re-render the whole app, and a
        // form still hydrating (see deferUntilInteraction) would be rendered anew, losing what was typed.
        setState((prev) => (session ? { status: 'signed-in', session } : prev.status === 'signed-out' ? prev : { status: 'signed-out' }));
      });
      unsubscribe = () => data.subscription.unsubscribe();
    });
    if (hasStoredSession()) getSupabase().catch(() => setState({ status: 'signed-out' }));
    return () => {
      stop();
      unsubscribe?.();
    };
  }, []);
  return <AuthContext.Provider value={state}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthState {
  return useContext(AuthContext);
}

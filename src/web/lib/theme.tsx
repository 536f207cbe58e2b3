import { createContext, useCallback, useContext, useEffect, useSyncExternalStore, type ReactNode } from 'react';
import { useAuth } from '@/lib/auth';
import { getSupabase } from '@/lib/supabase';
import { toast } from '@/lib/toast';

export type Theme = 'light' | 'dark';
export const THEME_STORAGE_KEY = 'nodeharbor-theme';

type ThemeContextValue = { theme: Theme; setTheme: (t: Theme) => void };
const ThemeContext = createContext<ThemeContextValue>({ theme: 'light', setTheme: () => undefined });

// The class on <html> is the theme's one home: the inline theme script sets it before paint, apply() changes it.
const listeners = new Set<() => void>();
const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => listeners.delete(l);
};
const currentTheme = (): Theme => (document.documentElement.classList.contains('dark') ? 'dark' : 'light');
// Prerendered pages are light; the real theme follows right after hydration.
const serverTheme = (): Theme => 'light';

function apply(theme: Theme): void {
  document.documentElement.classList.toggle('dark', theme === 'dark');
  try {
    localStorage.setItem(THEME_STORAGE_KEY, theme);
  } catch {
    // Storage blocked: the theme holds for this page only.
  }
  for (const l of listeners) l();
}

/** Light or dark (spec §4): kept in local storage, and in the profile when signed in. */
export function ThemeProvider({ children }: { children: ReactNode }) {
  const theme = useSyncExternalStore(subscribe, currentTheme, serverTheme);
  const auth = useAuth();
  const userId = auth.status === 'signed-in' ? auth.session.user.id : null;

  // The profile's choice wins when it loads; if it cannot be read, local storage stands.
  useEffect(() => {
    if (!userId) return;
    let live = true;
    void getSupabase()
      .then((s) => s.from('profiles').select('darkmode_enabled').eq('id', userId).maybeSingle())
      .then(({ data }) => {
        const dark = (data as { darkmode_enabled?: boolean | null } | null)?.darkmode_enabled;
        if (live && typeof dark === 'boolean') apply(dark ? 'dark' : 'light');
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [userId]);

  const setTheme = useCallback(
    (t: Theme) => {
      apply(t);
      if (!userId) return;
      void getSupabase()
        .then((s) =>
          s
            .from('profiles')
            .update({ darkmode_enabled: t === 'dark' })
            .eq('id', userId),
        )
        .then(({ error }) => {
          if (error) throw error;
        })
        .catch(() => toast.warning('Warning', 'Theme changed but could not be saved to your profile.'));
    },
    [userId],
  );

  return <ThemeContext.Provider value={{ theme, setTheme }}>{children}</ThemeContext.Provider>;
}

export function useTheme(): ThemeContextValue {
  return useContext(ThemeContext);
}

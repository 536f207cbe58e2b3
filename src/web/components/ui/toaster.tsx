import { useEffect, type CSSProperties } from 'react';
import { Toaster as Sonner } from 'sonner';
import { toasterReady } from '@/lib/toast';
import { useTheme } from '@/lib/theme';

// Sonner's light rich colours put their text at 3:1 to 4.3:1 on its pale backgrounds; the same hues,
// darker, reach 4.5:1 (WCAG AA). Its dark ones already do.
const LIGHT_TEXT = { '--success-text': '#166534', '--error-text': '#b91c1c', '--warning-text': '#92400e', '--info-text': '#1d4ed8' } as CSSProperties;

/** Sonner's Toaster; tells the toast module once it is subscribed (its effects run before ours). */
export default function Toaster() {
  useEffect(toasterReady, []);
  const { theme } = useTheme();
  // Bottom: at the top they covered the header's controls (user menu, Menu). Sonner spans phones' width.
  return <Sonner position="bottom-right" richColors closeButton theme={theme} style={theme === 'light' ? LIGHT_TEXT : undefined} />;
}

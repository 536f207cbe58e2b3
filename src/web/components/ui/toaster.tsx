import { useEffect } from 'react';
import { Toaster as Sonner } from 'sonner';
import { toasterReady } from '@/lib/toast';
import { useTheme } from '@/features/theme/theme-provider';

/** Sonner's Toaster; tells the toast module once it is subscribed (its effects run before ours). */
export default function Toaster() {
  useEffect(toasterReady, []);
  const { theme } = useTheme();
  // Bottom: at the top they covered the header's controls (user menu, Menu). Sonner spans phones' width.
  return <Sonner position="bottom-right" richColors closeButton theme={theme} />;
}

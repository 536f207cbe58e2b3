import { useEffect } from 'react';
import { Toaster as Sonner } from 'sonner';

/** Sonner's Toaster; tells the toast module once it is subscribed (its effects run before ours). */
export default function Toaster({ onReady }: { onReady: () => void }) {
  useEffect(onReady, [onReady]);
  const dark = document.documentElement.classList.contains('dark');
  return <Sonner position="top-right" richColors closeButton theme={dark ? 'dark' : 'light'} />;
}

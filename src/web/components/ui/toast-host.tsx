import { lazy, Suspense, useEffect, useState } from 'react';
import { registerToastHost } from '@/lib/toast';

const Toaster = lazy(() => import('./toaster'));

/** Mounts sonner's Toaster only when the first toast is shown. */
export function ToastHost() {
  const [mounted, setMounted] = useState(false);
  const [onReady, setOnReady] = useState<() => void>(() => () => undefined);
  useEffect(() => {
    const { onReady: ready } = registerToastHost(() => setMounted(true));
    setOnReady(() => ready);
  }, []);
  if (!mounted) return null;
  return (
    <Suspense fallback={null}>
      <Toaster onReady={onReady} />
    </Suspense>
  );
}

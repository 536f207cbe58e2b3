import { lazy, Suspense, useEffect, useState } from 'react';
import { registerToastHost } from '@/lib/toast';

const Toaster = lazy(() => import('./toaster'));

/** Mounts sonner's Toaster only when the first toast is shown. */
export function ToastHost() {
  const [mounted, setMounted] = useState(false);
  useEffect(() => registerToastHost(() => setMounted(true)), []);
  if (!mounted) return null;
  return (
    <Suspense fallback={null}>
      <Toaster />
    </Suspense>
  );
}

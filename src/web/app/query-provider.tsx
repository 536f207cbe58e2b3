import { QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { createQueryClient } from '@/lib/query-client';

// One client for the page's life: the dashboard's cache survives moving between its screens.
const queryClient = createQueryClient();

/** TanStack Query for the signed-in screens; loaded with them, never by the public pages. */
export default function QueryProvider({ children }: { children: ReactNode }) {
  return <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>;
}

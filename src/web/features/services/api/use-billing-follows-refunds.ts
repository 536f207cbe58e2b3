import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { billingKeys } from '@/lib/query-keys';
import type { Service } from './types';

/** Per query client, the services whose current refund its billing data has already been read again for. */
const seen = new WeakMap<QueryClient, Set<string>>();

const isRefunded = (s: Service) => s.install_refund !== null && s.install_refund !== undefined;

/**
 * A failed installation's charge comes back when it fails, on the server's side: once a read shows
 * a refund not seen before, the balance and the ledger are read again, so that they show it too. A
 * service read without one (retried) is forgotten, so that its next failure counts as new.
 */
export function useBillingFollowsRefunds(services: Service[] | undefined) {
  const queryClient = useQueryClient();
  const flags = services?.map((s) => `${s.id}:${isRefunded(s) ? 1 : 0}`).join(',') ?? '';
  useEffect(() => {
    const known = seen.get(queryClient) ?? new Set<string>();
    seen.set(queryClient, known);
    let fresh = false;
    for (const flag of flags ? flags.split(',') : []) {
      const [id = '', refunded] = flag.split(':');
      if (refunded === '0') known.delete(id);
      else if (!known.has(id)) {
        known.add(id);
        fresh = true;
      }
    }
    if (fresh) void queryClient.invalidateQueries({ queryKey: billingKeys.all });
  }, [flags, queryClient]);
}

import { serviceEventText } from '@shared/service-events';
import type { UseQueryResult } from '@tanstack/react-query';
import { useFormat } from '@/lib/format';
import type { UserServiceEvent } from '../api/get-user-events';
import type { Paged } from '../api/get-user-transactions';
import { PagedCard } from './paged-card';

/** The events of all the user's services, newest first, in the words their owner reads on the service's page. */
export function UserEvents({ query, page, onPage }: { query: UseQueryResult<Paged<UserServiceEvent>>; page: number; onPage: (page: number) => void }) {
  const f = useFormat();
  return (
    <PagedCard id="events" title="Service events" query={query} page={page} onPage={onPage} empty="No events">
      {(rows) => (
        <ol aria-label="Service events, newest first" className="mt-4 divide-y divide-border text-sm">
          {rows.map((e) => (
            <li key={e.id} className="flex flex-col gap-x-4 py-2 sm:flex-row">
              <time dateTime={e.created_at} className="shrink-0 text-muted-foreground sm:w-44">
                {f.dateTime(e.created_at)}
              </time>
              <span className="shrink-0 font-medium sm:w-36">{e.service_name}</span>
              <span className="min-w-0 break-words">{serviceEventText(e.event, e.detail, f)}</span>
            </li>
          ))}
        </ol>
      )}
    </PagedCard>
  );
}

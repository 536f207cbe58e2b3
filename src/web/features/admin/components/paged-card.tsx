import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Card } from '@/components/ui/card';
import { Pagination } from '@/components/ui/pagination';
import type { Paged } from '../api/get-user-transactions';

/** How many rows each list of the user's page shows at a time. */
export const USER_PAGE_SIZE = 20;

/**
 * One list of the user's page: a titled region, its rows (the previous page's while the next one
 * loads), a failure, or `empty`, then the pages. Its first page is read before the page shows.
 */
export function PagedCard<T>({
  id,
  title,
  query,
  page,
  onPage,
  empty,
  children,
}: {
  id: string;
  title: string;
  query: UseQueryResult<Paged<T>>;
  page: number;
  onPage: (page: number) => void;
  empty: string;
  children: (rows: T[]) => ReactNode;
}) {
  const data = query.data;
  return (
    <Card role="region" aria-labelledby={`${id}-heading`} className="min-w-0">
      <h2 id={`${id}-heading`} className="text-lg font-semibold">
        {title}
      </h2>
      {query.isError && (
        <p role="alert" className="mt-2 text-sm text-destructive">
          Failed to load the user.
        </p>
      )}
      {data && (data.rows.length === 0 ? <p className="mt-2 text-sm text-muted-foreground">{empty}</p> : children(data.rows))}
      <Pagination page={page} pages={Math.max(1, Math.ceil((data?.total ?? 0) / USER_PAGE_SIZE))} onPage={onPage} className="mt-4" />
    </Card>
  );
}

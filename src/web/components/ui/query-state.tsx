import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { cn } from '@/lib/utils';
import { Spinner } from './spinner';

/** A query's spinner while it loads, its failure message if it fails, and otherwise what its data renders. */
export function QueryState<T>({
  query,
  loading,
  failed,
  failedClassName,
  children,
}: {
  query: UseQueryResult<T>;
  loading: string;
  failed: string;
  /** Spacing and size of the failure message, which is always an alert in the destructive colour. */
  failedClassName?: string;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <Spinner label={loading} />;
  if (query.isError)
    return (
      <p role="alert" className={cn('text-destructive', failedClassName)}>
        {failed}
      </p>
    );
  return children(query.data);
}

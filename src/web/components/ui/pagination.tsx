import { Button } from '@/components/ui/button';
import { cn } from '@/lib/utils';

/** Previous, "Page X of Y", Next under a paged list (`page` counts from 0); nothing when there is one page. */
export function Pagination({ page, pages, onPage, className }: { page: number; pages: number; onPage: (page: number) => void; className?: string }) {
  if (pages <= 1) return null;
  return (
    <nav aria-label="Pagination" className={cn('flex items-center justify-between text-sm', className)}>
      <Button variant="outline" size="sm" disabled={page === 0} onClick={() => onPage(page - 1)}>
        Previous
      </Button>
      <span>
        Page {page + 1} of {pages}
      </span>
      <Button variant="outline" size="sm" disabled={page + 1 >= pages} onClick={() => onPage(page + 1)}>
        Next
      </Button>
    </nav>
  );
}

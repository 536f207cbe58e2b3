import { LEDGER_PAGE_SIZE, ledgerMessages, parseLedgerFilters, type LedgerFilters } from '@shared/ledger';
import { ArrowLeft } from 'lucide-react';
import { useEffect } from 'react';
import { Link, useSearchParams } from 'react-router';
import { Card } from '@/components/ui/card';
import { PageCount } from '@/components/ui/page-count';
import { Pagination } from '@/components/ui/pagination';
import { QueryState } from '@/components/ui/query-state';
import { paths } from '@/config/paths';
import { useLedgerPage, type LedgerQuery } from '@/features/billing/api/get-ledger-page';
import { ExportLedgerButton } from '@/features/billing/components/export-ledger-button';
import { LedgerFiltersForm } from '@/features/billing/components/ledger-filters';
import { LedgerTable } from '@/features/billing/components/ledger-table';
import type { SignedInUser } from '@/lib/signed-in-user';
import { dayStart, nextDay } from '@/lib/day-start';
import { useFormatPrefs } from '@/lib/format';

/** The address of a set of filters; a filter left empty and page 1 are not written. */
function toParams(f: LedgerFilters): URLSearchParams {
  const entries: [string, string][] = [];
  if (f.type) entries.push(['type', f.type]);
  if (f.from) entries.push(['from', f.from]);
  if (f.to) entries.push(['to', f.to]);
  if (f.page > 1) entries.push(['page', String(f.page)]);
  return new URLSearchParams(entries);
}

/**
 * Billing › Transactions: the user's whole ledger, newest first, in pages, filtered by type and by
 * date (whole days in the user's time zone, "to" included), and downloaded as CSV. The filters and
 * page live in the address, so a reload or a link shows the same rows; an address with a fault in
 * its filters is told so and shows no rows rather than rows it did not ask for.
 */
export function TransactionsPage({ user }: { user: SignedInUser }) {
  const { timeZone } = useFormatPrefs();
  const [params, setParams] = useSearchParams();
  const raw = { type: params.get('type') ?? '', from: params.get('from') ?? '', to: params.get('to') ?? '' };
  const parsed = parseLedgerFilters({ ...raw, page: params.get('page') });
  const filters: LedgerFilters = parsed.ok ? parsed.filters : { type: null, from: null, to: null, page: 1 };
  const query: LedgerQuery = {
    type: filters.type,
    from: filters.from && dayStart(filters.from, timeZone),
    to: filters.to && dayStart(nextDay(filters.to), timeZone),
  };
  const offset = (filters.page - 1) * LEDGER_PAGE_SIZE;
  const ledger = useLedgerPage(user.id, query, LEDGER_PAGE_SIZE, offset, parsed.ok);
  const total = ledger.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / LEDGER_PAGE_SIZE));
  const filtered = filters.type !== null || filters.from !== null || filters.to !== null;
  // Each set of filters is a step of its own in the history, so Back returns to the previous one.
  const show = (next: LedgerFilters) => setParams(toParams(next));
  // A page past the last (an old link, rows fewer since) shows the last one instead of nothing.
  const pastEnd = ledger.isSuccess && !ledger.isPlaceholderData && filters.page > pages;
  useEffect(() => {
    if (pastEnd) setParams(toParams({ ...filters, page: pages }), { replace: true });
  });

  return (
    <Card role="region" aria-labelledby="ledger-heading" className="min-w-0 space-y-4">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <div>
          <Link to={paths.dashboardBilling} className="inline-flex items-center gap-1 text-sm text-muted-foreground hover:text-foreground">
            <ArrowLeft className="size-4" aria-hidden="true" />
            Back to Billing
          </Link>
          <h2 id="ledger-heading" className="text-lg font-semibold">
            All transactions
          </h2>
        </div>
        <ExportLedgerButton userId={user.id} query={query} disabled={!parsed.ok || total === 0} />
      </div>
      {/* Keyed by the address: a reload, Back or a link puts its filters in the fields. */}
      <LedgerFiltersForm key={params.toString()} shown={raw} onApply={show} />
      {!parsed.ok ? (
        <p role="alert" className="text-sm text-destructive">
          {parsed.error}
        </p>
      ) : (
        <QueryState query={ledger} loading="Loading transactions..." failed="Failed to load transactions" failedClassName="text-sm">
          {(data) =>
            data.rows.length === 0 ? (
              <p className="text-muted-foreground">{filtered ? ledgerMessages.noMatch : ledgerMessages.none}</p>
            ) : (
              <>
                <PageCount offset={offset} shown={data.rows.length} total={data.total} />
                <LedgerTable rows={data.rows} />
              </>
            )
          }
        </QueryState>
      )}
      <Pagination page={filters.page - 1} pages={pages} onPage={(p) => show({ ...filters, page: p + 1 })} />
    </Card>
  );
}

import { TRANSACTION_TYPE_LABELS } from '@shared/ledger';
import type { ReactNode } from 'react';
import { useFormat } from '@/lib/format';
import { cn } from '@/lib/utils';
import type { Transaction } from '../api/get-transactions';

const COLUMNS = ['Date', 'Type', 'Description', 'Amount'] as const;

/**
 * The ledger's rows. From 768 px a table; below, each row stacks its cells under their names, so
 * that a phone never scrolls sideways.
 */
export function LedgerTable({ rows }: { rows: Transaction[] }) {
  const f = useFormat();
  return (
    <table className="block w-full text-sm md:table">
      <thead className="hidden text-left text-muted-foreground md:table-header-group">
        <tr>
          {COLUMNS.map((c) => (
            <th key={c} className={cn('py-2 pr-4 font-medium', c === 'Amount' && 'pr-0 text-right')}>
              {c}
            </th>
          ))}
        </tr>
      </thead>
      <tbody className="block divide-y divide-border md:table-row-group">
        {rows.map((t) => (
          <tr key={t.id} className="block space-y-1 py-3 md:table-row">
            <Cell label="Date" className="whitespace-nowrap">
              {f.dateTime(t.created_at)}
            </Cell>
            <Cell label="Type">{TRANSACTION_TYPE_LABELS[t.type]}</Cell>
            <Cell label="Description" className="break-words">
              {t.description}
            </Cell>
            <Cell label="Amount" end className={cn('whitespace-nowrap font-medium', t.amount < 0 ? 'text-destructive' : 'text-green-700 dark:text-green-400')}>
              {t.amount > 0 ? '+' : ''}
              {f.money(t.amount)}
            </Cell>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A cell; on a phone its column's name stands before it, as the header row is not shown there. */
function Cell({ label, end, className, children }: { label: string; end?: boolean; className?: string; children: ReactNode }) {
  return (
    <td className={cn('grid grid-cols-[6.5rem_minmax(0,1fr)] gap-x-3 md:table-cell md:py-2 md:pr-4 md:last:pr-0', end && 'md:text-right')}>
      <span className="text-muted-foreground md:hidden">{label}</span>
      <span className={className}>{children}</span>
    </td>
  );
}

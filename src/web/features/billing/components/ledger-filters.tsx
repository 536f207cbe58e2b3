import { parseLedgerFilters, TRANSACTION_TYPE_LABELS, TRANSACTION_TYPES, type LedgerFilters } from '@shared/ledger';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { FormField } from '@/components/ui/form-field';
import { Input, NativeSelect } from '@/components/ui/input';

/**
 * The Transactions page's type and date filters. `shown` is what the address holds (its raw text,
 * so a fault in it stays in the field to be corrected); a fault found on Filter is told under the
 * fields, and the list stays as it was.
 */
export function LedgerFiltersForm({ shown, onApply }: { shown: { type: string; from: string; to: string }; onApply: (next: LedgerFilters) => void }) {
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      role="search"
      aria-label="Filter transactions"
      className="grid grid-cols-1 gap-3 sm:grid-cols-3"
      onSubmit={(e) => {
        e.preventDefault();
        const data = new FormData(e.currentTarget);
        const parsed = parseLedgerFilters({ type: String(data.get('type')), from: String(data.get('from')), to: String(data.get('to')) });
        setError(parsed.ok ? null : parsed.error);
        if (parsed.ok) onApply(parsed.filters);
      }}
    >
      <FormField id="ledger-type" label="Type">
        <NativeSelect id="ledger-type" name="type" defaultValue={shown.type}>
          <option value="">All types</option>
          {/* An unknown type from the address stays selectable, so the field shows what is wrong. */}
          {shown.type && !(TRANSACTION_TYPES as readonly string[]).includes(shown.type) && <option value={shown.type}>{shown.type}</option>}
          {TRANSACTION_TYPES.map((t) => (
            <option key={t} value={t}>
              {TRANSACTION_TYPE_LABELS[t]}
            </option>
          ))}
        </NativeSelect>
      </FormField>
      <FormField id="ledger-from" label="From">
        <Input id="ledger-from" name="from" type="date" defaultValue={shown.from} aria-invalid={error !== null || undefined} />
      </FormField>
      <FormField id="ledger-to" label="To">
        <Input id="ledger-to" name="to" type="date" defaultValue={shown.to} aria-invalid={error !== null || undefined} />
      </FormField>
      {error && (
        <p role="alert" className="text-sm text-destructive sm:col-span-3">
          {error}
        </p>
      )}
      <div className="flex gap-2 sm:col-span-3">
        <Button type="submit" variant="outline">
          Filter
        </Button>
        <Button type="button" variant="ghost" onClick={() => onApply({ type: null, from: null, to: null, page: 1 })}>
          Clear filters
        </Button>
      </div>
    </form>
  );
}

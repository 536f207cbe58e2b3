import { CircleAlert, Wallet } from 'lucide-react';
import { Link } from 'react-router';
import { Button } from '@/components/ui/button';
import { paths } from '@/config/paths';
import { useBalance } from '@/lib/balance';
import { useFormat } from '@/lib/format';
import { topUpFor } from '@/lib/top-up';
import { useNegativeBalance } from '../api/get-negative-balance';

/**
 * The overview's banner while the balance is below zero (a refund or reversal took back credit
 * already spent): how much, why in the ledger's words and the admin's, what it stops, and Add funds
 * with the amount that brings it back to zero. Asked for only when the balance is negative.
 */
export function NegativeBalanceBanner({ userId }: { userId: string }) {
  const f = useFormat();
  const balance = useBalance(userId);
  const negative = balance.data !== undefined && balance.data < 0;
  const why = useNegativeBalance(userId, negative);
  if (!negative || why.data === undefined || why.data === null) return null;
  const { balance: owed, description, amount, created_at: at, note, credit_note: creditNote } = why.data;
  const topUp = topUpFor(-owed);
  return (
    <section aria-labelledby="negative-balance-heading" className="rounded-xl border border-destructive/60 bg-card p-6 shadow-sm">
      <div className="flex flex-col gap-4 md:flex-row md:items-center">
        <div className="min-w-0 flex-1 space-y-1 text-sm">
          <h2 id="negative-balance-heading" className="flex items-center gap-2 text-lg font-semibold">
            <CircleAlert className="size-5 shrink-0 text-destructive" aria-hidden="true" /> Your balance is {f.money(owed)}
          </h2>
          {description && amount !== null && at && (
            <p>
              Why: {description}, {f.money(amount)} taken back on {f.date(at)}
              {creditNote && <> (credit note {creditNote})</>}.
            </p>
          )}
          {note && <p className="break-words">Reason given: {note}</p>}
          <p className="text-muted-foreground">Services do not renew, and nothing can be charged, until a top-up brings the balance above zero.</p>
        </div>
        {topUp !== null && (
          <Button asChild className="shrink-0">
            <Link to={paths.dashboardBillingAddFunds(topUp)} aria-label={`Add funds (${f.money(topUp)}) to bring the balance to zero`}>
              <Wallet className="size-4" aria-hidden="true" /> Add funds ({f.money(topUp)})
            </Link>
          </Button>
        )}
      </div>
    </section>
  );
}

import { TRANSACTIONS_SHOWN } from '@shared/constants';
import { Link } from 'react-router';
import { Card } from '@/components/ui/card';
import { paths } from '@/config/paths';
import { useFormat } from '@/lib/format';
import { cn } from '@/lib/utils';
import { useBalance } from '@/lib/balance';
import { useTransactions } from '../api/get-transactions';
import { PaymentInfoDialog } from './payment-info-dialog';

export function BalanceCard({ userId }: { userId: string }) {
  const f = useFormat();
  const balance = useBalance(userId);
  const transactions = useTransactions(userId);
  return (
    <Card role="region" aria-labelledby="balance-heading">
      <div className="flex flex-wrap items-start justify-between gap-2">
        <h2 id="balance-heading" className="text-lg font-semibold">
          Account Balance
        </h2>
        <PaymentInfoDialog />
      </div>
      {balance.isError ? (
        <p role="alert" className="mt-2 text-destructive">
          Failed to load account balance
        </p>
      ) : (
        <p className="mt-2 text-3xl font-bold" aria-label="Current balance">
          {balance.data === undefined ? '-' : f.money(balance.data)}
        </p>
      )}
      <h3 className="mt-6 text-sm font-medium text-muted-foreground">Recent transactions</h3>
      {transactions.data && transactions.data.length === 0 && <p className="mt-2 text-sm text-muted-foreground">No transactions yet.</p>}
      <ul className="mt-2 divide-y divide-border" aria-label="Recent transactions">
        {transactions.data?.slice(0, TRANSACTIONS_SHOWN).map((t) => (
          <li key={t.id} className="flex items-center justify-between gap-4 py-2 text-sm">
            <span className="min-w-0">
              {/* One line, cut; on hover or keyboard focus it wraps to show the whole text. */}
              <span
                tabIndex={0}
                className="block truncate rounded-sm hover:whitespace-normal hover:break-words focus:whitespace-normal focus:break-words focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
              >
                {t.description}
              </span>
              <span className="block text-xs text-muted-foreground">{f.dateTime(t.created_at)}</span>
            </span>
            <span className={cn('shrink-0 font-medium', t.amount < 0 ? 'text-destructive' : 'text-green-700 dark:text-green-400')}>
              {t.amount > 0 ? '+' : ''}
              {f.money(t.amount)}
            </span>
          </li>
        ))}
      </ul>
      <Link to={paths.dashboardBillingTransactions} className="mt-2 inline-block text-sm font-medium text-primary underline-offset-4 hover:underline">
        View all transactions
      </Link>
    </Card>
  );
}

import { Wallet } from 'lucide-react';
import { Link } from 'react-router';
import { Button } from '@/components/ui/button';
import { paths } from '@/config/paths';
import { useBalance } from '@/lib/balance';
import { useFormat } from '@/lib/format';
import { topUpFor } from '@/lib/top-up';
import { useProducts } from '../api/get-products';
import { useServices } from '../api/get-services';
import type { Service } from '../api/types';
import { renewalShortfall } from '../service-status';

/**
 * A suspended service's way back, on its card and its page: what renewing it costs, the balance,
 * and "Add funds" with the amount that renews it, which opens Billing with that amount filled in.
 * The amount is what the balance lacks (decision 041), counting the suspended services a top-up
 * renews before this one. Nothing while the balance already covers it: the renewal is on its way.
 */
export function RenewalTopUp({ service, price }: { service: Service; price: number | undefined }) {
  const f = useFormat();
  const balance = useBalance(service.user_id);
  const services = useServices();
  const products = useProducts();
  if (balance.data === undefined || services.data === undefined || price === undefined) return null;
  const prices = new Map(products.data?.map((p) => [p.id, p.price]));
  // This service as the caller read it (the page may hold a newer read than the list), and the others as the list has them.
  const suspended = [...services.data.filter((s) => s.id !== service.id).map((s) => ({ ...s, price: prices.get(s.product_id ?? '') })), { ...service, price }];
  const amount = topUpFor(renewalShortfall(service.id, suspended, balance.data) ?? 0);
  if (amount === null) return null;
  const money = f.money(amount);
  return (
    <div className="flex flex-col gap-2 rounded-md border border-border p-2 text-sm sm:flex-row sm:items-center">
      <p className="min-w-0 flex-1">
        Renewing costs {f.money(price)} and your balance is {f.money(balance.data)}. Add {money} and it renews on its own: the same node starts again.
      </p>
      <Button asChild size="sm" className="self-start sm:self-auto">
        <Link to={paths.dashboardBillingAddFunds(amount)} aria-label={`Add funds (${money}) to renew ${service.name}`}>
          <Wallet className="size-4" aria-hidden="true" /> Add funds ({money})
        </Link>
      </Button>
    </div>
  );
}

import { Badge } from '@/components/ui/badge';

/** A reversal can take credit already spent: such an account owes money, and nothing of it renews. */
export function NegativeBalanceBadge({ balance }: { balance: number }) {
  if (balance >= 0) return null;
  return (
    <Badge variant="destructive" title="A payment was reversed after its credit was spent: nothing renews until a top-up covers the debt.">
      Negative balance
    </Badge>
  );
}

import { useFormat } from '@/lib/format';

/** Services in these states have no node, so no server to pay for: their margin is null whatever the cost. */
const WITHOUT_NODE = new Set(['failed', 'deleting', 'deleted']);

/**
 * A node's margin a month in USD (admin_fleet, admin_user): a loss in the destructive colour, and
 * "—" when the product has no recorded cost (private.product_costs) or the service no node.
 */
export function MonthlyMargin({ value, serviceState }: { value: number | null; serviceState: string }) {
  const f = useFormat();
  if (value === null) return <span title={WITHOUT_NODE.has(serviceState) ? 'No node, so no cost' : 'No cost recorded for this product'}>—</span>;
  return <span className={value < 0 ? 'text-destructive' : undefined}>{f.money(value)}</span>;
}

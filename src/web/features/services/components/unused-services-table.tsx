import { Link } from 'react-router';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { paths } from '@/config/paths';
import { useFormat } from '@/lib/format';
import { useUnusedServices } from '../api/get-unused-services';
import { TableScroll } from '@/components/ui/table-scroll';

/** Deleted services whose paid period has not ended: a new service of the same plan reuses them at no charge. */
export function UnusedServicesTable({ userId }: { userId: string }) {
  const f = useFormat();
  const unused = useUnusedServices(userId);
  return (
    <Card role="region" aria-labelledby="unused-heading">
      <h2 id="unused-heading" className="text-lg font-semibold">
        Unused Purchased Services
      </h2>
      <p className="text-sm text-muted-foreground">Create a service of the same plan to reuse one at no charge.</p>
      {unused.data?.length === 0 && <p className="mt-2 text-sm text-muted-foreground">No unused purchased services.</p>}
      {!!unused.data?.length && (
        <TableScroll label="Unused services table" className="mt-4">
          <table className="w-full text-sm">
            <thead className="text-left text-muted-foreground">
              <tr>
                <th className="py-2 pr-4 font-medium">Name</th>
                <th className="py-2 pr-4 font-medium">Product</th>
                <th className="py-2 pr-4 font-medium">Status</th>
                <th className="py-2 font-medium">
                  <span className="sr-only">Action</span>
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-border">
              {unused.data.map((s) => (
                <tr key={s.id}>
                  <td className="py-2 pr-4 font-medium">{s.name}</td>
                  <td className="py-2 pr-4">
                    {s.product_name} ({f.money(s.product_price)})
                  </td>
                  <td className="py-2 pr-4">
                    <Badge variant="secondary">{s.renews_at ? `Paid until ${f.date(s.renews_at)}` : 'Unused'}</Badge>
                  </td>
                  <td className="py-2 text-right">
                    <Button asChild size="sm" variant="outline">
                      <Link to={paths.dashboardServices}>Go to Services</Link>
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </Card>
  );
}

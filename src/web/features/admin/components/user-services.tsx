import { SERVICE_STATE_LABELS } from '@shared/admin-labels';
import type { ReactNode } from 'react';
import { Card } from '@/components/ui/card';
import { NodeStateBadge, seenAgo } from '@/components/ui/node-state-badge';
import { TableScroll } from '@/components/ui/table-scroll';
import { useFormat } from '@/lib/format';
import type { AdminUserService } from '../api/get-admin-user';
import { MonthlyMargin } from './monthly-margin';

/**
 * The user's live services: each one's own state, and its node's as the monitor last saw it (none
 * for a service with no node to watch). `actions` renders a row's buttons (composed in by the route).
 */
export function UserServices({ services, actions }: { services: AdminUserService[]; actions: (service: AdminUserService) => ReactNode }) {
  const f = useFormat();
  return (
    <Card role="region" aria-labelledby="services-heading" className="min-w-0">
      <h2 id="services-heading" className="text-lg font-semibold">
        Services
      </h2>
      {services.length === 0 ? (
        <p className="mt-2 text-sm text-muted-foreground">No services</p>
      ) : (
        <TableScroll label="Services table" className="mt-4">
          <table className="w-full text-sm">
            <thead className="text-left text-muted-foreground">
              <tr>
                <th className="py-2 pr-4 font-medium">Service</th>
                <th className="py-2 pr-4 font-medium">Product</th>
                <th className="py-2 pr-4 font-medium">State</th>
                <th className="py-2 pr-4 font-medium">Node</th>
                <th className="py-2 pr-4 font-medium">Last seen</th>
                <th className="py-2 pr-4 font-medium">Created</th>
                <th className="py-2 pr-4 font-medium">Paid until</th>
                <th className="py-2 pr-4 font-medium">Margin / month</th>
                <th className="py-2 font-medium">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-border">
              {services.map((s) => (
                <tr key={s.id}>
                  <td className="py-2 pr-4 font-medium">{s.name}</td>
                  <td className="py-2 pr-4">{s.product}</td>
                  <td className="py-2 pr-4">
                    {SERVICE_STATE_LABELS[s.service_state]}
                    {s.service_state === 'failed' && s.provisioning_error && (
                      <p className="mt-1 max-w-xs break-words text-xs text-muted-foreground">{s.provisioning_error}</p>
                    )}
                  </td>
                  <td className="py-2 pr-4">
                    {s.node_state && <NodeStateBadge state={s.node_state} />}
                    {(s.node_state === 'offline' || s.node_state === 'restarting') && s.reason && (
                      <p className="mt-1 max-w-xs break-words text-xs text-muted-foreground">{s.reason}</p>
                    )}
                  </td>
                  <td className="py-2 pr-4">{s.last_seen_at ? seenAgo(f, s.last_seen_at) : 'Never'}</td>
                  <td className="whitespace-nowrap py-2 pr-4">{f.date(s.created_at)}</td>
                  <td className="whitespace-nowrap py-2 pr-4">{s.renews_at ? f.date(s.renews_at) : 'One-time'}</td>
                  <td className="whitespace-nowrap py-2 pr-4">
                    <MonthlyMargin value={s.monthly_margin} serviceState={s.service_state} />
                  </td>
                  <td className="py-2">
                    <div className="flex justify-end gap-2">{actions(s)}</div>
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

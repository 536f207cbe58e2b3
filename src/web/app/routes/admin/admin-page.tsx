import { useSearchParams } from 'react-router';
import { Tabs } from '@/components/ui/tabs';
import { paths } from '@/config/paths';
import { AuditLogView } from '@/features/admin/components/audit-log-view';
import { ContactMessages } from '@/features/admin/components/contact-messages';
import { ContactSettings } from '@/features/admin/components/contact-settings';
import { FleetView } from '@/features/admin/components/fleet-view';
import { MailOutbox } from '@/features/admin/components/mail-outbox';
import { StatusPageAdmin } from '@/features/admin/components/status-page-admin';
import { UserManagement } from '@/features/admin/components/user-management';
import { useSignedInUser } from '@/lib/signed-in-user';
import { NodeLogsDialog } from '@/features/nodes/components/node-logs-dialog';
import { PowerActions } from '@/features/services/components/power-actions';
import { RetryInstallButton, RetryLeftToOwner } from '@/features/services/components/retry-install-button';
import { Seo } from '@/lib/seo';
import { AppShell } from '../dashboard/app-shell';
import { AdminOnly } from './admin-only';

const TABS = ['users', 'contact', 'fleet', 'audit', 'messages', 'status'] as const;

/**
 * /admin: signed-in users only (ProtectedRoute), then admins only by the server's word (spec §6).
 * The tab is in the address (?tab=audit), so a reload or a link keeps it.
 */
export default function AdminPage() {
  const user = useSignedInUser();
  const [params, setParams] = useSearchParams();
  const tab = TABS.find((t) => t === params.get('tab')) ?? 'users';

  return (
    <>
      <Seo title="Admin Dashboard" description="NodeHarbor administration." path={paths.admin} noindex />
      <AdminOnly user={user}>
        <AppShell user={user} title="Admin Dashboard">
          <Tabs
            lazy
            defaultValue="users"
            value={tab}
            // Replaced, not pushed, as Settings does: Back leaves the admin area rather than walking its tabs.
            onValueChange={(t) => setParams(t === 'users' ? {} : { tab: t }, { replace: true })}
            tabs={[
              { value: 'users', label: 'User Management', content: <UserManagement /> },
              { value: 'contact', label: 'Contact Settings', content: <ContactSettings /> },
              {
                value: 'fleet',
                label: 'Fleet',
                // The owner's Retry and power actions and the service page's Logs, the same components: features do not import each other, routes compose them.
                content: (
                  <FleetView
                    actions={(row, refresh) => (
                      <>
                        {row.state === 'failed' &&
                          (row.install_refunded ? (
                            <RetryLeftToOwner />
                          ) : (
                            <RetryInstallButton service={{ id: row.service_id, name: row.name }} onRetried={refresh} />
                          ))}
                        {row.service_state === 'active' && (
                          <PowerActions service={{ id: row.service_id, name: row.name }} stopped={row.stopped_at !== null} blocked={null} onDone={refresh} />
                        )}
                        <NodeLogsDialog serviceId={row.service_id} name={row.name} />
                      </>
                    )}
                  />
                ),
              },
              { value: 'audit', label: 'Audit log', content: <AuditLogView /> },
              {
                value: 'messages',
                label: 'Messages',
                content: (
                  <div className="space-y-6">
                    <ContactMessages />
                    <MailOutbox />
                  </div>
                ),
              },
              { value: 'status', label: 'Status page', content: <StatusPageAdmin /> },
            ]}
          />
        </AppShell>
      </AdminOnly>
    </>
  );
}

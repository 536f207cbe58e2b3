import { useParams } from 'react-router';
import { UserDetails } from '@/features/admin/components/user-details';
import { useSignedInUser } from '@/lib/signed-in-user';
import { RetryInstallButton, RetryLeftToOwner } from '@/features/services/components/retry-install-button';
import { AppShell } from '../dashboard/app-shell';
import { AdminOnly } from './admin-only';

/** /admin/users/:userId, admins only. The owner's Retry button is composed in here: features do not import each other. */
export default function AdminUserPage() {
  const user = useSignedInUser();
  const { userId = '' } = useParams();
  return (
    <AdminOnly user={user}>
      <AppShell user={user} title="Admin Dashboard">
        <UserDetails
          key={userId}
          userId={userId}
          adminId={user.id}
          serviceActions={(s, refresh) =>
            s.service_state === 'failed' &&
            (s.install_refunded ? <RetryLeftToOwner /> : <RetryInstallButton service={{ id: s.id, name: s.name }} onRetried={refresh} />)
          }
        />
      </AppShell>
    </AdminOnly>
  );
}

import type { ReactNode } from 'react';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { errorText } from '@/lib/error-text';
import { useFormat } from '@/lib/format';
import { toast } from '@/lib/toast';
import type { AdminUser } from '../api/get-admin-user';
import { useReactivateUser } from '../api/reactivate-user';
import { useSendPasswordReset } from '../api/send-password-reset';
import { useSetDevAccess } from '../api/set-dev-access';
import { AddCreditDialog } from './add-credit-dialog';
import { DeleteUserDialog } from './delete-user-dialog';
import { NegativeBalanceBadge } from './negative-balance-badge';
import { SuspendUserDialog } from './suspend-user-dialog';

const yesNo = (v: boolean) => (v ? 'Yes' : 'No');

function Item({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-muted-foreground">{term}</dt>
      <dd className="break-words text-sm">{children}</dd>
    </div>
  );
}

/**
 * Who the user is and where their account stands, with what an admin may do to it. An admin's own
 * page leaves out what would lock them out (suspend, revoke, delete); the server refuses those too.
 */
export function UserProfile({ user, self, onDeleted }: { user: AdminUser; self: boolean; onDeleted: () => void }) {
  const f = useFormat();
  const devAccess = useSetDevAccess();
  const reactivate = useReactivateUser();
  const reset = useSendPasswordReset();

  const run = async (action: () => Promise<unknown>, title: string, description: string) => {
    try {
      await action();
      toast.success(title, description);
    } catch (e) {
      toast.error('Action failed', errorText(e));
    }
  };

  const suspension = user.suspended ? (user.suspended_until ? `Until ${f.dateTime(user.suspended_until)}` : 'Until reactivated') : 'No';

  return (
    <Card role="region" aria-labelledby="profile-heading" className="space-y-4">
      <div className="flex flex-wrap items-center gap-2">
        <h2 id="profile-heading" className="min-w-0 break-all text-xl font-semibold">
          {user.email}
        </h2>
        {user.is_admin && <Badge variant="default">Admin</Badge>}
        {user.suspended && <Badge variant="destructive">Suspended</Badge>}
        <NegativeBalanceBadge balance={user.balance} />
      </div>
      <dl className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-4">
        <Item term="Full name">{user.full_name || 'Not provided'}</Item>
        <Item term="Balance">
          <span className="text-lg font-bold">{f.money(user.balance)}</span>
        </Item>
        <Item term="Created">{f.dateTime(user.created_at)}</Item>
        <Item term="Last sign-in">{user.last_sign_in_at ? f.dateTime(user.last_sign_in_at) : 'Never'}</Item>
        <Item term="E-mail confirmed">{user.email_confirmed_at ? f.dateTime(user.email_confirmed_at) : 'No'}</Item>
        <Item term="Dev access">{user.is_admin ? 'Yes (admin)' : yesNo(user.has_dev_access)}</Item>
        <Item term="Second factor">{yesNo(user.second_factor)}</Item>
        <Item term="Suspended">{suspension}</Item>
      </dl>
      {self && (
        <p className="rounded-md border border-border p-2 text-sm text-muted-foreground">
          This is your own account: you cannot suspend it, revoke its dev access or delete it here.
        </p>
      )}
      <div role="group" aria-label="Actions" className="flex flex-wrap gap-2">
        <AddCreditDialog user={{ user_id: user.id, email: user.email }} />
        {!user.has_dev_access ? (
          <Button
            variant="outline"
            disabled={devAccess.isPending}
            onClick={() =>
              void run(() => devAccess.mutateAsync({ userId: user.id, granted: true }), 'Dev access granted', `${user.email} can now open development hosts.`)
            }
          >
            Grant dev access
          </Button>
        ) : (
          !self && (
            <Button
              variant="outline"
              disabled={devAccess.isPending}
              onClick={() =>
                void run(
                  () => devAccess.mutateAsync({ userId: user.id, granted: false }),
                  'Dev access revoked',
                  `${user.email} can no longer open development hosts.`,
                )
              }
            >
              Revoke dev access
            </Button>
          )
        )}
        {!user.suspended && (
          <Button
            variant="outline"
            disabled={reset.isPending}
            onClick={() => void run(() => reset.mutateAsync({ userId: user.id }), 'Reset link sent', `A password reset link is on its way to ${user.email}.`)}
          >
            Send password reset link
          </Button>
        )}
        {user.suspended ? (
          <Button
            variant="outline"
            disabled={reactivate.isPending}
            onClick={() => void run(() => reactivate.mutateAsync({ userId: user.id }), 'User reactivated', `${user.email} can sign in again.`)}
          >
            Reactivate
          </Button>
        ) : (
          !self && <SuspendUserDialog user={user} />
        )}
        {!self && <DeleteUserDialog user={user} onDeleted={onDeleted} />}
      </div>
    </Card>
  );
}

import { messages } from '@shared/validation';
import { useQueryClient } from '@tanstack/react-query';
import { ArrowLeft } from 'lucide-react';
import { useState, type ReactNode } from 'react';
import { Link, useNavigate } from 'react-router';
import { Card } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { paths } from '@/config/paths';
import { Seo } from '@/lib/seo';
import { useAdminUser, type AdminUserService } from '../api/get-admin-user';
import { useUserEvents } from '../api/get-user-events';
import { useUserPurchases } from '../api/get-user-purchases';
import { useUserTransactions } from '../api/get-user-transactions';
import { USER_PAGE_SIZE } from './paged-card';
import { UserEvents } from './user-events';
import { UserLedger } from './user-ledger';
import { UserProfile } from './user-profile';
import { UserPurchases } from './user-purchases';
import { UserServices } from './user-services';
import { adminKeys } from '@/lib/query-keys';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const backLink = (
  <Link to={paths.admin} className="inline-flex items-center gap-1 text-sm text-primary hover:underline">
    <ArrowLeft className="size-4" aria-hidden="true" /> Back to Admin Dashboard
  </Link>
);

/** The browser tab names the user, or says what the page shows instead. */
const title = (userId: string, name: string) => (
  <Seo title={name} description="A NodeHarbor user, as an admin sees them." path={paths.adminUser(userId)} noindex />
);

const notFound = (userId: string) => (
  <Card className="space-y-2 py-12 text-center">
    {title(userId, messages.adminUserNotFound)}
    <h2 className="text-lg font-semibold">{messages.adminUserNotFound}</h2>
    <p className="text-sm text-muted-foreground">There is no such user. The account may have been deleted.</p>
    {backLink}
  </Card>
);

type Props = {
  userId: string;
  /** The signed-in admin: their own page leaves out what would lock them out. */
  adminId: string;
  /** A service row's buttons (Retry: the services feature's, composed in by the route). */
  serviceActions: (service: AdminUserService, refresh: () => void) => ReactNode;
};

/**
 * /admin/users/:userId: one user's profile, balance and actions, their services with their node
 * states, and their ledger, purchases and service events in pages. An id that is not a uuid is not
 * found without asking (the server would refuse it).
 */
export function UserDetails(props: Props) {
  return UUID.test(props.userId) ? <Details {...props} /> : notFound(props.userId);
}

function Details({ userId, adminId, serviceActions }: Props) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [ledgerPage, setLedgerPage] = useState(0);
  const [purchasesPage, setPurchasesPage] = useState(0);
  const [eventsPage, setEventsPage] = useState(0);
  const user = useAdminUser(userId);
  const ledger = useUserTransactions(userId, USER_PAGE_SIZE, ledgerPage * USER_PAGE_SIZE);
  const purchases = useUserPurchases(userId, USER_PAGE_SIZE, purchasesPage * USER_PAGE_SIZE);
  const events = useUserEvents(userId, USER_PAGE_SIZE, eventsPage * USER_PAGE_SIZE);

  if (user.isPending)
    return (
      <>
        {title(userId, 'User')}
        <Spinner label="Loading user..." />
      </>
    );
  if (user.data === undefined)
    return (
      <>
        {title(userId, 'User')}
        <p role="alert" className="py-8 text-center text-destructive">
          Failed to load the user.
        </p>
      </>
    );
  if (user.data === null) return notFound(userId);
  const u = user.data;

  return (
    <div className="min-w-0 space-y-6">
      {title(userId, u.email)}
      {backLink}
      <UserProfile user={u} self={u.id === adminId} onDeleted={() => void navigate(paths.admin)} />
      <UserServices services={u.services} actions={(s) => serviceActions(s, () => void queryClient.invalidateQueries({ queryKey: adminKeys.user(userId) }))} />
      <UserLedger query={ledger} page={ledgerPage} onPage={setLedgerPage} />
      <UserPurchases userId={userId} balance={u.balance} query={purchases} page={purchasesPage} onPage={setPurchasesPage} />
      <UserEvents query={events} page={eventsPage} onPage={setEventsPage} />
    </div>
  );
}

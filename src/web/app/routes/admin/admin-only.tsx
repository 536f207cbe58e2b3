import { useEffect, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { Spinner } from '@/components/ui/spinner';
import { paths } from '@/config/paths';
import { useIsAdmin } from '@/features/admin/api/get-is-admin';
import type { SignedInUser } from '@/lib/signed-in-user';
import { toast } from '@/lib/toast';

/**
 * The admin area's guard, inside ProtectedRoute: admins only, by the server's word (spec §6). A
 * non-admin, or a failed check, gets the spec's toast and is sent home; until then, a spinner.
 */
export function AdminOnly({ user, children }: { user: SignedInUser; children: ReactNode }) {
  const isAdmin = useIsAdmin(user.id);
  const navigate = useNavigate();

  useEffect(() => {
    if (isAdmin.isError) toast.error('Failed to check admin privileges.');
    else if (isAdmin.data === false) toast.error('Access Denied', 'You do not have admin privileges.');
    else return;
    navigate(paths.home, { replace: true });
  }, [isAdmin.isError, isAdmin.data, navigate]);

  return isAdmin.data !== true ? <Spinner label="Checking admin privileges..." /> : children;
}

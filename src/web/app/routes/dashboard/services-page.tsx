import { useBalance } from '@/features/billing/api/get-balance';
import type { SignedInUser } from '@/features/dashboard/signed-in-user';
import { ServicesView } from '@/features/services/components/services-view';

export function ServicesPage({ user }: { user: SignedInUser }) {
  const balance = useBalance(user.id);
  return <ServicesView user={user} balance={balance.data} />;
}

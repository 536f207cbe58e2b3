import { useBalance } from '@/lib/balance';
import type { SignedInUser } from '@/lib/signed-in-user';
import { ServicesView } from '@/features/services/components/services-view';

export function ServicesPage({ user }: { user: SignedInUser }) {
  const balance = useBalance(user.id);
  return <ServicesView user={user} balance={balance.data} />;
}

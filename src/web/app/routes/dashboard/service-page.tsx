import { useParams } from 'react-router';
import type { SignedInUser } from '@/lib/signed-in-user';
import { NodeLogsDialog } from '@/features/nodes/components/node-logs-dialog';
import { ServiceDetails } from '@/features/services/components/service-details';

/** /dashboard/services/:serviceId. The Logs dialog is the nodes feature's, shared with the admin's fleet. */
export function ServicePage({ user }: { user: SignedInUser }) {
  const { serviceId = '' } = useParams();
  return <ServiceDetails key={serviceId} serviceId={serviceId} userEmail={user.email} logs={(s) => <NodeLogsDialog serviceId={s.id} name={s.name} />} />;
}

import { INSTALL_MINUTES } from '@shared/constants';
import { RotateCcw } from 'lucide-react';
import { Button } from '@/components/ui/button';
import { serverRefusal } from '@/lib/error-text';
import { toast } from '@/lib/toast';
import { useRetryServiceInstallation } from '../api/retry-service-installation';
import type { Service } from '../api/types';

/**
 * Retry on a service whose installation failed: back to Installing, nothing charged. The owner's
 * card and the admin's fleet show it; `onRetried` lets a caller with its own list refresh it.
 */
export function RetryInstallButton({ service, onRetried }: { service: Pick<Service, 'id' | 'name'>; onRetried?: () => void }) {
  const retry = useRetryServiceInstallation();
  const onClick = async () => {
    try {
      await retry.mutateAsync(service.id);
      onRetried?.();
      toast.success('Installation restarted', `${service.name} is being set up again. This takes up to ${INSTALL_MINUTES} minutes.`);
    } catch (e) {
      toast.error(serverRefusal(e) ?? 'Failed to retry the installation');
    }
  };
  return (
    <Button variant="outline" size="sm" disabled={retry.isPending} aria-label={`Retry ${service.name}`} onClick={() => void onClick()}>
      <RotateCcw className="size-4" aria-hidden="true" /> {retry.isPending ? 'Retrying...' : 'Retry'}
    </Button>
  );
}

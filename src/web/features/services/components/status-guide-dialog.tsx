import { INSTALL_MINUTES } from '@shared/constants';
import { HelpCircle } from 'lucide-react';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { PAID_FROM_FIRST_RUN } from '../service-status';
import { StatusBadge } from './status-badges';

export function StatusGuideDialog() {
  return (
    <Dialog
      title="Service statuses"
      description="What each status badge on a service means."
      trigger={
        <Button variant="link" size="sm" className="px-0">
          <HelpCircle className="size-4" aria-hidden="true" /> What do these statuses mean?
        </Button>
      }
    >
      <dl className="space-y-4 text-sm">
        <div>
          <dt><StatusBadge status="installing" /></dt>
          <dd className="mt-1 text-muted-foreground">Your node is being set up. This takes up to {INSTALL_MINUTES} minutes.</dd>
        </div>
        <div>
          <dt><StatusBadge status="failed" /></dt>
          <dd className="mt-1 text-muted-foreground">
            Your node could not start; the reason is shown on the service. Retry the installation, or delete the service. {PAID_FROM_FIRST_RUN}
          </dd>
        </div>
        <div>
          <dt><StatusBadge status="active" /></dt>
          <dd className="mt-1 text-muted-foreground">Your node is running and monitored around the clock.</dd>
        </div>
        <div>
          <dt><StatusBadge status="expired" /></dt>
          <dd className="mt-1 text-muted-foreground">The paid period ended without enough balance to renew. Extend it to start it again.</dd>
        </div>
        <div>
          <dt><StatusBadge status="deleting" /></dt>
          <dd className="mt-1 text-muted-foreground">The node is being stopped and moved to trash. This takes a few minutes.</dd>
        </div>
      </dl>
    </Dialog>
  );
}

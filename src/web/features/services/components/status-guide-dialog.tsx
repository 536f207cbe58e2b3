import { INSTALL_MINUTES } from '@shared/constants';
import type { NodeState } from '@shared/node-health';
import { HelpCircle } from 'lucide-react';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { NodeStateBadge } from '@/components/ui/node-state-badge';
import { PAID_FROM_FIRST_RUN } from '../service-status';
import { StatusBadge } from './status-badges';

/** What the badge beside an active or expired service's status says of its node (the monitor's). */
const NODE_STATES: [NodeState, string][] = [
  ['online', 'The node is running. We check it around the clock.'],
  ['restarting', 'The node stopped and is being started again, automatically.'],
  ['offline', 'The node is not running and is not starting. We are on it, and e-mail you if it stays down.'],
  ['stopped', 'The node is stopped because the service is suspended or expired.'],
  ['unknown', 'We have not heard from the node in the last few minutes.'],
];

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
          <dt>
            <StatusBadge status="installing" />
          </dt>
          <dd className="mt-1 text-muted-foreground">Your node is being set up. This takes up to {INSTALL_MINUTES} minutes.</dd>
        </div>
        <div>
          <dt>
            <StatusBadge status="failed" />
          </dt>
          <dd className="mt-1 text-muted-foreground">
            Your node could not start; the reason is shown on the service. Retry the installation, or delete the service. {PAID_FROM_FIRST_RUN}
          </dd>
        </div>
        <div>
          <dt>
            <StatusBadge status="active" />
          </dt>
          <dd className="mt-1 text-muted-foreground">Your node is running and monitored around the clock.</dd>
        </div>
        <div>
          <dt>
            <StatusBadge status="suspended" />
          </dt>
          <dd className="mt-1 text-muted-foreground">
            The renewal found too little credit. The node is stopped but kept: add credit and the service renews on its own and the same node starts again, or
            extend it. Unpaid by the day on its badge, it is terminated: the node is removed and the service leaves this list.
          </dd>
        </div>
        <div>
          <dt>
            <StatusBadge status="expired" />
          </dt>
          <dd className="mt-1 text-muted-foreground">The paid period ended and the service was not renewed. Extend it to start it again.</dd>
        </div>
        <div>
          <dt>
            <StatusBadge status="deleting" />
          </dt>
          <dd className="mt-1 text-muted-foreground">The node is being stopped and moved to trash. This takes a few minutes.</dd>
        </div>
      </dl>
      <h3 className="mt-6 text-sm font-semibold">The node</h3>
      <dl className="mt-2 space-y-4 text-sm">
        {NODE_STATES.map(([state, meaning]) => (
          <div key={state}>
            <dt>
              <NodeStateBadge state={state} />
            </dt>
            <dd className="mt-1 text-muted-foreground">{meaning}</dd>
          </div>
        ))}
      </dl>
    </Dialog>
  );
}

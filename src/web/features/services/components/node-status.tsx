import { NodeStateBadge, seenAgo } from '@/components/ui/node-state-badge';
import { useFormat } from '@/lib/format';
import type { Service } from '../api/types';

/** A live service's node badge and when it was last seen online; nothing for a service with no node to watch. */
export function NodeStatus({ service }: { service: Pick<Service, 'node_state' | 'last_seen_at'> }) {
  const f = useFormat();
  if (!service.node_state) return null;
  return (
    <>
      <NodeStateBadge state={service.node_state} />
      <span className="text-xs text-muted-foreground" title={service.last_seen_at ? f.dateTime(service.last_seen_at) : undefined}>
        {service.last_seen_at ? `last seen ${seenAgo(f, service.last_seen_at)}` : 'never seen'}
      </span>
    </>
  );
}

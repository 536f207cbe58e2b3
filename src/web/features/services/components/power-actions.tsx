import { powerConfirm, powerMessages, powerTexts, POWER_LOAD_FAILED, type PowerAction } from '@shared/power-actions';
import { Play, RotateCw, Square } from 'lucide-react';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { Tooltip } from '@/components/ui/tooltip';
import { serverRefusal } from '@/lib/error-text';
import { toast } from '@/lib/toast';
import { useServicePower } from '../api/get-service-power';
import { usePowerService } from '../api/power-service';
import type { DisplayStatus } from '../service-status';

const ICONS = { restart: RotateCw, stop: Square, start: Play } as const;

type Props = {
  service: { id: string; name: string };
  /** Whether its node was stopped on request: Start is offered, else Restart and Stop. */
  stopped: boolean;
  /** Why nothing can be done now (a suspended or expired service), or null. */
  blocked: string | null;
  /** After the server took an action (a caller with a list of its own reads it again). */
  onDone?: () => void;
};

/**
 * Restart and Stop, or Start, of one node: the owner's on the service page, and an admin's in the
 * fleet (composed in by the route). Restart and Stop ask first, Stop saying that the paid period
 * keeps running; Start, which takes nothing down, does not. The server decides (owner or admin,
 * second factor, state, the hourly limit), and its refusal is shown as it says it.
 */
export function PowerActions({ service, stopped, blocked, onDone }: Props) {
  const power = usePowerService();
  const [confirming, setConfirming] = useState<'restart' | 'stop' | null>(null);

  const act = async (action: PowerAction) => {
    try {
      await power.mutateAsync({ serviceId: service.id, action });
      toast.success(powerTexts[action].done, powerTexts[action].doneText(service.name));
      onDone?.();
    } catch (e) {
      toast.error(serverRefusal(e) ?? powerTexts[action].failed);
    } finally {
      setConfirming(null);
    }
  };

  const button = (action: PowerAction) => {
    const Icon = ICONS[action];
    const pending = power.isPending && power.variables?.action === action;
    return (
      <Tooltip key={action} content={blocked}>
        <Button
          variant="outline"
          size="sm"
          disabled={!!blocked || power.isPending}
          aria-label={`${powerTexts[action].label} ${service.name}`}
          onClick={() => (action === 'start' ? void act('start') : setConfirming(action))}
        >
          <Icon className="size-4" aria-hidden="true" /> {pending ? powerTexts[action].pending : powerTexts[action].label}
        </Button>
      </Tooltip>
    );
  };

  const asked = confirming && powerConfirm[confirming];
  return (
    <>
      {stopped || blocked ? button('start') : [button('restart'), button('stop')]}
      <Dialog
        open={confirming !== null}
        onOpenChange={(open) => !open && !power.isPending && setConfirming(null)}
        title={asked ? asked.title(service.name) : ''}
        description={asked?.description}
      >
        <div className="flex justify-end gap-2">
          <Button variant="outline" disabled={power.isPending} onClick={() => setConfirming(null)}>
            Cancel
          </Button>
          <Button variant={confirming === 'stop' ? 'destructive' : 'default'} disabled={power.isPending} onClick={() => confirming && void act(confirming)}>
            {power.isPending && confirming ? powerTexts[confirming].pending : asked?.confirm}
          </Button>
        </div>
      </Dialog>
    </>
  );
}

/** Why a service's node cannot be powered by its owner in this state, for the states that show the buttons. */
const BLOCKED: Partial<Record<DisplayStatus, string>> = { suspended: powerMessages.suspended, expired: powerMessages.expired };

/**
 * The service page's power actions: its own read of whether the node was stopped on request. Only a
 * service with a node shows them: an active one, or a suspended or expired one, whose Start is
 * disabled with the reason.
 */
export function ServicePowerActions({ service, status }: { service: { id: string; name: string }; status: DisplayStatus }) {
  const power = useServicePower(service.id);
  if (status !== 'active' && !BLOCKED[status]) return null;
  if (power.data === undefined) {
    return power.isError ? (
      <p role="alert" className="self-center text-sm text-destructive">
        {POWER_LOAD_FAILED}
      </p>
    ) : null;
  }
  if (power.data === null) return null;
  return <PowerActions service={service} stopped={power.data.stopped_at !== null} blocked={BLOCKED[status] ?? null} />;
}

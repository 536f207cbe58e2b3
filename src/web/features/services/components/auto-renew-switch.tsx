import { autoRenewTexts } from '@shared/auto-renew';
import { Switch } from '@/components/ui/switch';
import { serverRefusal } from '@/lib/error-text';
import { useFormat } from '@/lib/format';
import { toast } from '@/lib/toast';
import { useSetAutoRenew } from '../api/set-auto-renew';
import type { Service } from '../api/types';

/**
 * The service page's "Renew automatically": on, the service renews from the credit at the end of
 * each paid period; off, it ends there, uncharged. Shows the owner's choice while it is being saved.
 */
export function AutoRenewSwitch({ service }: { service: Service }) {
  const f = useFormat();
  const set = useSetAutoRenew();
  const on = set.isPending ? set.variables.autoRenew : service.auto_renew !== false;
  const id = `auto-renew-${service.id}`;
  const change = async (autoRenew: boolean) => {
    try {
      const changed = await set.mutateAsync({ serviceId: service.id, autoRenew });
      const day = changed.renews_at ? f.date(changed.renews_at) : undefined;
      const [title, say] = autoRenew ? [autoRenewTexts.turnedOn, autoRenewTexts.onToast] : [autoRenewTexts.turnedOff, autoRenewTexts.offToast];
      toast.success(title, day && say(service.name, day));
    } catch (e) {
      toast.error(serverRefusal(e) ?? autoRenewTexts.failed);
    }
  };
  return (
    <div className="flex items-start gap-3 pt-1">
      <Switch id={id} checked={on} disabled={set.isPending} aria-describedby={`${id}-hint`} onCheckedChange={(next) => void change(next)} />
      <div className="min-w-0">
        <label htmlFor={id} className="text-sm font-medium">
          {autoRenewTexts.label}
        </label>
        <p id={`${id}-hint`} className="text-xs text-muted-foreground">
          {on ? autoRenewTexts.onHint : autoRenewTexts.offHint}
        </p>
      </div>
    </div>
  );
}

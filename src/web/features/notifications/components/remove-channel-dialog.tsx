import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { errorText } from '@/lib/error-text';
import { toast } from '@/lib/toast';
import { useRemoveChannel } from '../api/change-channel';
import type { NotificationChannel } from '../api/get-channels';
import { notificationTexts as t } from '../notification-texts';

/** Removes a channel after a confirmation: its preferences and delivery log go with it. */
export function RemoveChannelDialog({ channel }: { channel: NotificationChannel }) {
  const [open, setOpen] = useState(false);
  const remove = useRemoveChannel();
  const confirm = async () => {
    try {
      await remove.mutateAsync(channel.id);
      toast.success(t.removed, channel.name);
      setOpen(false);
    } catch (e) {
      toast.error(t.removeFailed, errorText(e));
    }
  };
  return (
    <Dialog
      open={open}
      onOpenChange={setOpen}
      title={t.removeTitle(channel.name)}
      description={t.removeDescription}
      trigger={
        <Button variant="ghost" size="sm">
          {t.remove}
        </Button>
      }
    >
      <div className="flex justify-end gap-2">
        <Button variant="outline" onClick={() => setOpen(false)}>
          {t.cancel}
        </Button>
        <Button variant="destructive" disabled={remove.isPending} onClick={() => void confirm()}>
          {remove.isPending ? t.removing : t.removeConfirm}
        </Button>
      </div>
    </Dialog>
  );
}

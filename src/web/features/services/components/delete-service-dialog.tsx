import { Trash2 } from 'lucide-react';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { Dialog, type DialogControl } from '@/components/ui/dialog';
import { Tooltip } from '@/components/ui/tooltip';
import { toast } from '@/lib/toast';
import { useDeleteService } from '../api/delete-service';
import { notifyServiceEvent } from '../api/notify-service-event';
import type { Service } from '../api/types';

/**
 * `onDeleted` runs once the server has taken the deletion (the service page leaves for the list).
 * With `control` it is opened from a menu (the service page's) and has no button of its own.
 */
export function DeleteServiceDialog({
  service,
  userEmail,
  blocked,
  onDeleted,
  control,
}: {
  service: Service;
  userEmail: string;
  blocked: string | null;
  onDeleted?: () => void;
  control?: DialogControl;
}) {
  const [ownOpen, setOwnOpen] = useState(false);
  const open = control ? control.open : ownOpen;
  const setOpen = control ? control.onOpenChange : setOwnOpen;
  const [understood, setUnderstood] = useState(false);
  const remove = useDeleteService();

  // Closing resets the confirmation (spec §2).
  const onOpenChange = (next: boolean) => {
    setOpen(next);
    if (!next) setUnderstood(false);
  };

  const confirm = async () => {
    try {
      const deleted = await remove.mutateAsync(service.id);
      toast.success('Service Deleted', 'The service has been moved to trash.');
      void notifyServiceEvent(deleted, userEmail, 'service_deleted');
      onOpenChange(false);
      onDeleted?.();
    } catch {
      toast.error('Failed to delete service');
    }
  };

  const trigger = (
    <Button variant="destructive" size="sm" disabled={!!blocked} aria-label={`Delete ${service.name}`} onClick={() => setOpen(true)}>
      <Trash2 className="size-4" aria-hidden="true" /> Delete
    </Button>
  );

  return (
    <>
      {!control && <Tooltip content={blocked}>{trigger}</Tooltip>}
      <Dialog
        open={open}
        onOpenChange={onOpenChange}
        title={`Delete ${service.name}?`}
        description="The node is stopped and the service is moved to trash."
        returnFocus={control?.returnFocus}
      >
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" checked={understood} onChange={(e) => setUnderstood(e.target.checked)} className="size-4" />I understand this action cannot be
          undone
        </label>
        <div className="mt-6 flex justify-end gap-2">
          <Button variant="outline" onClick={() => onOpenChange(false)}>
            Cancel
          </Button>
          <Button variant="destructive" disabled={!understood || remove.isPending} onClick={() => void confirm()}>
            {remove.isPending ? 'Deleting...' : 'Delete Service'}
          </Button>
        </div>
      </Dialog>
    </>
  );
}

import { NOTIFICATION_EVENT_LABELS, type NotificationEvent } from '@shared/notifications';
import { useState } from 'react';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { QueryState } from '@/components/ui/query-state';
import { TableScroll } from '@/components/ui/table-scroll';
import { useFormat } from '@/lib/format';
import { useAttempts } from '../api/get-attempts';
import type { NotificationChannel } from '../api/get-channels';
import { notificationTexts as t } from '../notification-texts';

/** An attempt's event in words; a test from Settings carries an event of its own. */
function eventLabel(event: string): string {
  return NOTIFICATION_EVENT_LABELS[event as NotificationEvent] ?? t.testEvent;
}

/** The channel's last attempts: when, what, whether it arrived, the answer's status code and the error. */
export function DeliveryLogDialog({ channel }: { channel: NotificationChannel }) {
  const [open, setOpen] = useState(false);
  const attempts = useAttempts(channel.id, open);
  const f = useFormat();
  const title = t.deliveryLogTitle(channel.name);
  return (
    <Dialog
      open={open}
      onOpenChange={setOpen}
      wide
      title={title}
      description={t.deliveryLogIntro}
      trigger={
        <Button variant="outline" size="sm">
          {t.deliveryLog}
        </Button>
      }
    >
      <QueryState query={attempts} loading="Loading..." failed={t.deliveryLogFailed} failedClassName="text-sm">
        {(rows) =>
          rows.length === 0 ? (
            <p className="text-sm text-muted-foreground">{t.deliveryLogEmpty}</p>
          ) : (
            <TableScroll label={title}>
              <table className="w-full text-left text-sm">
                <thead className="text-muted-foreground">
                  <tr>
                    <th scope="col" className="py-2 pr-3 font-medium">
                      {t.columns.time}
                    </th>
                    <th scope="col" className="py-2 pr-3 font-medium">
                      {t.columns.event}
                    </th>
                    <th scope="col" className="py-2 pr-3 font-medium">
                      {t.columns.result}
                    </th>
                    <th scope="col" className="py-2 pr-3 font-medium">
                      {t.columns.code}
                    </th>
                    <th scope="col" className="py-2 font-medium">
                      {t.columns.error}
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((a) => (
                    <tr key={a.id} className="border-t border-border align-top">
                      <td className="whitespace-nowrap py-2 pr-3">{f.dateTime(a.attempted_at)}</td>
                      <td className="whitespace-nowrap py-2 pr-3">{eventLabel(a.event)}</td>
                      <td className="py-2 pr-3">
                        <Badge variant={a.ok ? 'success' : 'destructive'}>{a.ok ? t.delivered : t.failedAttempt}</Badge>
                      </td>
                      <td className="py-2 pr-3 font-mono">{a.status_code ?? '—'}</td>
                      <td className="min-w-48 break-words py-2">{a.error ?? ''}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
          )
        }
      </QueryState>
    </Dialog>
  );
}

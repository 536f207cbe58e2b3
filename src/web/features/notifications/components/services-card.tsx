import { Card } from '@/components/ui/card';
import { QueryState } from '@/components/ui/query-state';
import { Switch } from '@/components/ui/switch';
import { TableScroll } from '@/components/ui/table-scroll';
import { errorText } from '@/lib/error-text';
import { toast } from '@/lib/toast';
import { useNotificationServices } from '../api/get-notification-services';
import { useServiceSettings } from '../api/get-service-settings';
import { useSetServiceNotifications } from '../api/set-service-notifications';
import { notificationTexts as t } from '../notification-texts';
import { isOn, type Column } from './columns';
import { ColumnsHead } from './columns-head';

/** Each service with a switch per channel, and Mute, which turns them all off (and back on). */
export function ServicesCard({ columns }: { columns: Column[] }) {
  const services = useNotificationServices();
  const settings = useServiceSettings();
  const set = useSetServiceNotifications();
  const change = (serviceId: string, channels: Column[], enabled: boolean) =>
    set.mutate({ serviceId, channels: channels.map((c) => ({ channel: c.ref, enabled })) }, { onError: (e) => toast.error(t.saveFailed, errorText(e)) });

  return (
    <Card role="region" aria-labelledby="service-notifications-heading">
      <h2 id="service-notifications-heading" className="text-lg font-semibold">
        {t.servicesHeading}
      </h2>
      <p className="mt-1 text-sm text-muted-foreground">{t.servicesIntro}</p>
      <QueryState query={services} loading={t.loading} failed={t.failed} failedClassName="mt-4 text-sm">
        {(list) =>
          list.length === 0 ? (
            <p className="mt-4 text-sm text-muted-foreground">{t.servicesEmpty}</p>
          ) : (
            <QueryState query={settings} loading={t.loading} failed={t.failed} failedClassName="mt-4 text-sm">
              {(rows) => (
                <TableScroll label={t.servicesHeading} className="mt-4">
                  <table className="w-full text-sm">
                    <ColumnsHead rows={t.service} columns={columns} last={t.mute} />
                    <tbody>
                      {list.map((s) => {
                        const on = (ref: string) => isOn(rows, (r) => r.service_id === s.id && r.channel === ref);
                        const muted = columns.every((c) => !on(c.ref));
                        return (
                          <tr key={s.id} className="border-t border-border">
                            <th scope="row" className="sticky left-0 z-10 max-w-48 break-words bg-card py-2 pr-3 text-left font-normal">
                              {s.name}
                            </th>
                            {columns.map((c) => (
                              <td key={c.ref} className="px-2 py-2 text-center">
                                <Switch aria-label={t.serviceBy(s.name, c.label)} checked={on(c.ref)} onCheckedChange={(next) => change(s.id, [c], next)} />
                              </td>
                            ))}
                            <td className="px-2 py-2 text-center">
                              <Switch aria-label={t.muteLabel(s.name)} checked={muted} onCheckedChange={(mute) => change(s.id, columns, !mute)} />
                            </td>
                          </tr>
                        );
                      })}
                    </tbody>
                  </table>
                </TableScroll>
              )}
            </QueryState>
          )
        }
      </QueryState>
    </Card>
  );
}

import { ALWAYS_EMAILED, NOTIFICATION_EVENT_LABELS, NOTIFICATION_EVENTS, notificationMessages, type NotificationEvent } from '@shared/notifications';
import { Card } from '@/components/ui/card';
import { QueryState } from '@/components/ui/query-state';
import { Switch } from '@/components/ui/switch';
import { TableScroll } from '@/components/ui/table-scroll';
import { errorText } from '@/lib/error-text';
import { toast } from '@/lib/toast';
import { usePreferences } from '../api/get-preferences';
import { useSetPreference } from '../api/set-preference';
import { notificationTexts as t } from '../notification-texts';
import { isOn, type Column } from './columns';
import { ColumnsHead } from './columns-head';

const LOCKED_NOTE = 'security-always-emailed';

/** Events × channels: each switch is saved as it is turned, and put back with a toast if the server refuses. */
export function PreferencesCard({ columns }: { columns: Column[] }) {
  const preferences = usePreferences();
  const set = useSetPreference();
  const change = (event: NotificationEvent, channel: string, enabled: boolean) =>
    set.mutate({ event, channel, enabled }, { onError: (e) => toast.error(t.saveFailed, errorText(e)) });

  return (
    <Card role="region" aria-labelledby="preferences-heading">
      <h2 id="preferences-heading" className="text-lg font-semibold">
        {t.preferencesHeading}
      </h2>
      <p className="mt-1 text-sm text-muted-foreground">{t.preferencesIntro}</p>
      <QueryState query={preferences} loading={t.loading} failed={t.failed} failedClassName="mt-4 text-sm">
        {(rows) => (
          <TableScroll label={t.preferencesHeading} className="mt-4">
            <table className="w-full text-sm">
              <ColumnsHead rows={t.notification} columns={columns} />
              <tbody>
                {NOTIFICATION_EVENTS.map((event) => {
                  const label = NOTIFICATION_EVENT_LABELS[event];
                  return (
                    <tr key={event} className="border-t border-border">
                      <th scope="row" className="sticky left-0 z-10 whitespace-nowrap bg-card py-2 pr-3 text-left font-normal">
                        {label}
                      </th>
                      {columns.map((c) => {
                        const locked = c.ref === 'email' && ALWAYS_EMAILED.includes(event);
                        return (
                          <td key={c.ref} className="px-2 py-2 text-center">
                            <Switch
                              aria-label={t.by(label, c.label)}
                              checked={locked || isOn(rows, (r) => r.channel === c.ref && r.event === event)}
                              disabled={locked}
                              {...(locked ? { 'aria-describedby': LOCKED_NOTE } : {})}
                              onCheckedChange={(on) => change(event, c.ref, on)}
                            />
                          </td>
                        );
                      })}
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </TableScroll>
        )}
      </QueryState>
      <p id={LOCKED_NOTE} className="mt-3 text-sm text-muted-foreground">
        {notificationMessages.securityAlwaysEmailed}.
      </p>
    </Card>
  );
}

import { Monitor } from 'lucide-react';
import { browserName } from '@shared/browser-name';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { QueryState } from '@/components/ui/query-state';
import { errorText } from '@/lib/error-text';
import { useFormat } from '@/lib/format';
import { toast } from '@/lib/toast';
import { useEndOtherSessions, useEndSession } from '../api/end-sessions';
import { useSessions } from '../api/list-sessions';

/** "Firefox on Windows", from the browser's user agent as the server recorded it. */
function describeDevice(userAgent: string | null): string {
  if (!userAgent) return 'Unknown device';
  return browserName(userAgent) ?? 'Unknown browser';
}

/** The devices signed in to the account, each of which can be signed out, this one excepted. */
export function SessionsCard() {
  const sessions = useSessions();
  const endOne = useEndSession();
  const endOthers = useEndOtherSessions();
  const f = useFormat();

  const signOut = async (id: string, device: string) => {
    try {
      await endOne.mutateAsync(id);
      toast.success('Device signed out', `${device} is no longer signed in.`);
    } catch (e) {
      toast.error('Could not sign out the device', errorText(e));
    }
  };

  const signOutOthers = async () => {
    try {
      await endOthers.mutateAsync();
      toast.success('Signed out everywhere else', 'Only this device is still signed in.');
    } catch (e) {
      toast.error('Could not sign out the other devices', errorText(e));
    }
  };

  return (
    <Card role="region" aria-labelledby="sessions-heading" className="lg:col-span-2">
      <h2 id="sessions-heading" className="text-lg font-semibold">
        Sessions
      </h2>
      <p className="mt-1 text-sm text-muted-foreground">
        Devices signed in to your account. If you don&apos;t recognise one, sign it out and change your password.
      </p>
      <QueryState query={sessions} loading="Loading..." failed="Failed to load your sessions." failedClassName="mt-4 text-sm">
        {(data) => (
          <>
            <ul className="mt-4 space-y-2" aria-label="Signed-in devices">
              {data.map((s) => {
                const device = describeDevice(s.user_agent);
                return (
                  <li key={s.id} className="flex items-center justify-between gap-2 rounded-md border border-border p-3 text-sm">
                    <span className="flex items-start gap-3">
                      <Monitor className="mt-0.5 size-4 shrink-0 text-muted-foreground" aria-hidden="true" />
                      <span>
                        <span className="flex flex-wrap items-center gap-2 font-medium">
                          {device}
                          {s.is_current && <Badge variant="success">This device</Badge>}
                        </span>
                        <span className="block text-muted-foreground">
                          {s.ip || 'Unknown address'} · {s.is_current ? 'Active now' : `Last active ${f.dateTime(s.last_active_at)}`}
                        </span>
                        <span className="block text-muted-foreground">Signed in {f.dateTime(s.created_at)}</span>
                      </span>
                    </span>
                    {!s.is_current && (
                      <Button
                        variant="outline"
                        size="sm"
                        disabled={endOne.isPending}
                        onClick={() => void signOut(s.id, device)}
                        aria-label={`Sign out ${device}`}
                      >
                        Sign out
                      </Button>
                    )}
                  </li>
                );
              })}
            </ul>
            {data.some((s) => !s.is_current) && (
              <Button variant="outline" className="mt-4" disabled={endOthers.isPending} onClick={() => void signOutOthers()}>
                Sign out everywhere else
              </Button>
            )}
          </>
        )}
      </QueryState>
    </Card>
  );
}

import { ShieldAlert } from 'lucide-react';
import { useEffect, useState, type ReactNode } from 'react';
import { useLocation } from 'react-router';
import { Spinner } from '@/components/ui/spinner';
import { devBlockExempt } from '@/config/paths';
import { useAuth } from '@/lib/auth';
import { useAppConfig } from '@/lib/app-config';
import { getSupabase } from '@/lib/supabase';
import { isDevHost } from '../dev-host';

async function hasDevAccess(userId: string): Promise<boolean> {
  try {
    const { data, error } = await (await getSupabase()).rpc('has_dev_access', { user_uuid: userId });
    if (error) throw error;
    return data === true;
  } catch (e) {
    // Spec §8: a failed check is logged and denies access.
    console.error('Error checking dev access:', e);
    return false;
  }
}

/**
 * Spec §2, §4, §6: on a development host only users with dev access see the site; elsewhere
 * everyone does. The prerendered page shows the site; the check runs once the config is known.
 */
export function DevAccessGate({ children }: { children: ReactNode }) {
  const { data: config } = useAppConfig();
  const { pathname } = useLocation();
  const auth = useAuth();
  const userId = auth.status === 'signed-in' ? auth.session.user.id : null;
  const devHost = config ? isDevHost(window.location.hostname, config.devHostSuffixes) : false;
  // The answer for one user: a different user (or none) is a new question.
  const [answer, setAnswer] = useState<{ userId: string; allowed: boolean } | null>(null);
  useEffect(() => {
    if (!devHost || userId === null) return;
    let live = true;
    void hasDevAccess(userId).then((allowed) => {
      if (live) setAnswer({ userId, allowed });
    });
    return () => {
      live = false;
    };
  }, [devHost, userId]);
  const checked = answer !== null && answer.userId === userId;

  if (!devHost || devBlockExempt.includes(pathname)) return children;
  if (checked && answer.allowed) return children;
  if (auth.status === 'loading' || (userId !== null && !checked)) {
    return (
      <main className="flex min-h-screen items-center justify-center">
        <Spinner label="Checking development access..." />
      </main>
    );
  }
  return (
    <main className="flex min-h-screen items-center justify-center px-4">
      <div className="w-full max-w-lg rounded-xl border border-border bg-card p-8 text-center shadow-sm">
        <ShieldAlert className="mx-auto size-12 text-destructive" aria-hidden="true" />
        <h1 className="mt-4 text-2xl font-bold">Development Access Required</h1>
        <p className="mt-3 text-muted-foreground">This is a development environment. You need special access to view this site.</p>
        <dl className="mt-6 grid grid-cols-[auto_1fr] gap-x-4 gap-y-2 rounded-md bg-muted p-4 text-left text-sm">
          <dt className="font-medium">Environment</dt>
          <dd>Development</dd>
          <dt className="font-medium">Host</dt>
          <dd className="break-all">{window.location.hostname}</dd>
        </dl>
        <p className="mt-6 text-sm text-muted-foreground">If you believe you should have access, please contact an administrator.</p>
      </div>
    </main>
  );
}

import { LogOut } from 'lucide-react';
import { useNavigate } from 'react-router';
import { Button } from '@/components/ui/button';
import { paths } from '@/config/paths';
import { useAuth } from '@/features/auth/auth-provider';
import { Seo } from '@/lib/seo';
import { getSupabase } from '@/lib/supabase';
import { toast } from '@/lib/toast';

/** Placeholder until the dashboard issue lands: who is signed in, and a way out. */
export default function DashboardPage() {
  const auth = useAuth();
  const navigate = useNavigate();
  const email = auth.status === 'signed-in' ? auth.session.user.email : undefined;

  async function signOut() {
    const supabase = await getSupabase();
    const { error } = await supabase.auth.signOut();
    // Spec §8: a session the server no longer knows is as good as signed out.
    if (error && ![401, 403, 404].includes(error.status ?? 0)) return toast.error('Error signing out', error.message);
    navigate(paths.login, { replace: true });
  }

  return (
    <>
      <Seo title="Dashboard" description="Your NodeHarbor dashboard." path={paths.dashboard} noindex />
      <div className="mx-auto max-w-4xl px-4 py-16">
        <h1 className="text-3xl font-bold tracking-tight">Dashboard</h1>
        <p className="mt-2 text-muted-foreground">Signed in as {email}</p>
        <Button variant="outline" className="mt-8" onClick={() => void signOut()}>
          <LogOut className="size-4" aria-hidden="true" /> Sign out
        </Button>
      </div>
    </>
  );
}

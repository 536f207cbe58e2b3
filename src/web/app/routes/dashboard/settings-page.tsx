import { Navigate, useNavigate, useParams } from 'react-router';
import { QueryState } from '@/components/ui/query-state';
import { Tabs } from '@/components/ui/tabs';
import { paths } from '@/config/paths';
import { ApiTokensCard } from '@/features/api-tokens/components/api-tokens-card';
import { useProfile } from '@/features/account/api/get-profile';
import { useUpdateProfile } from '@/features/account/api/update-profile';
import type { SignedInUser } from '@/lib/signed-in-user';
import { ChangePasswordForm } from '@/features/settings/components/change-password-form';
import { DeleteAccountCard } from '@/features/settings/components/delete-account-card';
import { GeneralSettings } from '@/features/settings/components/general-settings';
import { SessionsCard } from '@/features/settings/components/sessions-card';
import { TwoFactorCard } from '@/features/settings/components/two-factor-card';
import { NotificationSettings } from '@/features/notifications/components/notification-settings';
import { toast } from '@/lib/toast';

/** /dashboard/settings (General) and /dashboard/settings/security: the tab is in the address. */
export function SettingsPage({ user }: { user: SignedInUser }) {
  const { tab } = useParams();
  const navigate = useNavigate();
  const profile = useProfile(user.id);
  const update = useUpdateProfile(user.id);

  const general = (
    <QueryState query={profile} loading="Loading your settings..." failed="Failed to load your settings.">
      {(data) => (
        <GeneralSettings
          key={`${data.language}|${data.time_zone}`}
          prefs={{ language: data.language, timeZone: data.time_zone }}
          saving={update.isPending}
          onSave={({ language, timeZone }) =>
            update.mutate(
              { language, time_zone: timeZone },
              {
                onSuccess: () => toast.success('Settings saved', 'Dates and amounts now follow your language and time zone.'),
                onError: () => toast.error('Error saving settings', 'Your language and time zone could not be saved. Please try again.'),
              },
            )
          }
        />
      )}
    </QueryState>
  );

  // Each tab but General has an address of its own: General is the plain one, and any other name leads there.
  if (tab !== undefined && tab !== 'security' && tab !== 'notifications' && tab !== 'api-tokens') return <Navigate to={paths.dashboardSettings} replace />;

  return (
    <Tabs
      defaultValue="general"
      value={tab ?? 'general'}
      // Replaced, not pushed: Back leaves Settings rather than walking back through its tabs.
      onValueChange={(t) => navigate(t === 'general' ? paths.dashboardSettings : paths.dashboardSettingsTab(t), { replace: true })}
      tabs={[
        { value: 'general', label: 'General', content: general },
        {
          value: 'security',
          label: 'Security',
          content: (
            <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
              <ChangePasswordForm />
              <TwoFactorCard />
              <SessionsCard />
              <DeleteAccountCard user={user} />
            </div>
          ),
        },
        // Rendered only while chosen: it reads (and, while a Telegram chat is being linked, polls) what no other tab needs.
        { value: 'notifications', label: 'Notifications', content: tab === 'notifications' && <NotificationSettings user={user} /> },
        { value: 'api-tokens', label: 'API tokens', content: tab === 'api-tokens' && <ApiTokensCard /> },
      ]}
    />
  );
}

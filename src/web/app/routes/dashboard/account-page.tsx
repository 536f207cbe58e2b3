import { QueryState } from '@/components/ui/query-state';
import { useProfile } from '@/features/account/api/get-profile';
import { AccountStatusCard } from '@/features/account/components/account-status-card';
import { PersonalInfoForm } from '@/features/account/components/personal-info-form';
import type { SignedInUser } from '@/lib/signed-in-user';

export function AccountPage({ user }: { user: SignedInUser }) {
  const profile = useProfile(user.id);
  return (
    <div className="grid grid-cols-1 gap-6 lg:grid-cols-3">
      <div className="lg:col-span-2">
        <QueryState query={profile} loading="Loading your profile..." failed="Failed to load your profile.">
          {(data) => <PersonalInfoForm profile={data} email={user.email} />}
        </QueryState>
      </div>
      <AccountStatusCard memberSince={user.createdAt} />
    </div>
  );
}

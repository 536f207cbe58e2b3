import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { PROFILE_COMPANY_MAX, PROFILE_COMPANY_VAT_MAX, PROFILE_FULL_NAME_MAX } from '@shared/constants';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { FormField } from '@/components/ui/form-field';
import { Input } from '@/components/ui/input';
import { UserAvatar } from '@/components/ui/user-avatar';
import { toast } from '@/lib/toast';
import type { Profile } from '../api/get-profile';
import { useUpdateProfile } from '../api/update-profile';

type Values = { full_name: string; company: string; company_vat: string };
const toValues = (p: Profile): Values => ({ full_name: p.full_name ?? '', company: p.company ?? '', company_vat: p.company_vat ?? '' });
// Read-only, not disabled: a value in the page's own colour, still labelled, focusable and copyable, not a faded placeholder.
const valueClass = 'read-only:border-transparent read-only:bg-muted';

/** Personal info: read-only values until Edit; the e-mail is never editable (spec §5). */
export function PersonalInfoForm({ profile, email }: { profile: Profile; email: string }) {
  const [editing, setEditing] = useState(false);
  const update = useUpdateProfile(profile.id);
  const form = useForm<Values>({ values: toValues(profile) });

  const onSubmit = form.handleSubmit(async (v) => {
    try {
      await update.mutateAsync({ full_name: v.full_name.trim() || null, company: v.company.trim() || null, company_vat: v.company_vat.trim() || null });
      toast.success('Profile updated');
      setEditing(false);
    } catch {
      toast.error('Error updating profile', 'There was a problem updating your profile. Please try again.');
    }
  });

  return (
    <Card role="region" aria-labelledby="personal-heading">
      <div className="flex items-center gap-4">
        <UserAvatar fullName={profile.full_name} className="size-14 text-lg" />
        <div>
          <h2 id="personal-heading" className="text-lg font-semibold">
            Personal Information
          </h2>
          <p className="text-sm text-muted-foreground">Your name and company details.</p>
        </div>
      </div>
      <form onSubmit={onSubmit} className="mt-6 space-y-4">
        <FormField id="account-name" label="Full name">
          <Input
            id="account-name"
            autoComplete="name"
            maxLength={PROFILE_FULL_NAME_MAX}
            readOnly={!editing}
            className={valueClass}
            {...form.register('full_name')}
          />
        </FormField>
        <FormField id="account-email" label="Email">
          <Input id="account-email" type="email" value={email} readOnly className={valueClass} aria-describedby="account-email-note" />
        </FormField>
        <p id="account-email-note" className="-mt-2 text-xs text-muted-foreground">
          The e-mail address cannot be changed here.
        </p>
        <FormField id="account-company" label="Company">
          <Input
            id="account-company"
            autoComplete="organization"
            maxLength={PROFILE_COMPANY_MAX}
            readOnly={!editing}
            className={valueClass}
            {...form.register('company')}
          />
        </FormField>
        <FormField id="account-vat" label="VAT ID">
          <Input id="account-vat" maxLength={PROFILE_COMPANY_VAT_MAX} readOnly={!editing} className={valueClass} {...form.register('company_vat')} />
        </FormField>
        <div className="flex gap-2">
          {editing ? (
            <>
              {/* Keys: without them React would turn the clicked Edit button into this submit button
                  during the click, and the browser would then submit the form. */}
              <Button key="save" type="submit" disabled={update.isPending}>
                {update.isPending ? 'Saving...' : 'Save'}
              </Button>
              <Button
                type="button"
                variant="outline"
                onClick={() => {
                  form.reset(toValues(profile));
                  setEditing(false);
                }}
              >
                Cancel
              </Button>
            </>
          ) : (
            <Button key="edit" type="button" onClick={() => setEditing(true)}>
              Edit
            </Button>
          )}
        </div>
      </form>
    </Card>
  );
}

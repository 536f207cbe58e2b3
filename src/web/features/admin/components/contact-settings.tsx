import type { ReactNode } from 'react';
import { Badge } from '@/components/ui/badge';
import { Card } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { useContactSettings } from '../api/get-contact-settings';

/** Read-only (spec §6): the contact form is configured on the server, never here, and no secret is shown. */
export function ContactSettings() {
  const settings = useContactSettings();
  const value = (set: string | null, shown: ReactNode) => (settings.isSuccess ? set ? shown : <Badge variant="outline">Not set</Badge> : null);

  return (
    <Card role="region" aria-labelledby="contact-settings-heading" className="space-y-4">
      <h2 id="contact-settings-heading" className="text-lg font-semibold">
        Contact Form Settings
      </h2>
      <p className="text-sm text-muted-foreground">
        These settings are read-only. They are set with environment variables on the server and take effect when it restarts.
      </p>
      {settings.isPending && <Spinner label="Loading the contact settings..." />}
      {settings.isError && (
        <p role="alert" className="text-sm text-destructive">
          Failed to load the contact settings.
        </p>
      )}
      <dl className="space-y-4 text-sm">
        <Setting name="CONTACT_TO" about="The address that receives contact-form messages. Messages are always stored, even when no mail can be sent.">
          {value(settings.data?.contact_to ?? null, <span>{settings.data?.contact_to}</span>)}
        </Setting>
        <Setting name="SMTP_URL" about="The mail server used to send contact messages and service notices. Its credentials are never shown here.">
          {value(settings.data?.smtp_host ?? null, <span>Set, relaying through {settings.data?.smtp_host}</span>)}
        </Setting>
        <Setting name="MAIL_FROM" about="The sender of every mail.">
          {value(settings.data?.mail_from ?? null, <span>{settings.data?.mail_from}</span>)}
        </Setting>
      </dl>
    </Card>
  );
}

function Setting({ name, about, children }: { name: string; about: string; children: ReactNode }) {
  return (
    <div>
      <dt className="font-mono font-medium">{name}</dt>
      <dd className="text-muted-foreground">{about}</dd>
      <dd className="mt-1 font-medium" data-testid={`setting-${name}`}>
        {children}
      </dd>
    </div>
  );
}

import { Card } from '@/components/ui/card';

/** Read-only (spec §6): the contact form is configured on the server, never here, and no secret is shown. */
export function ContactSettings() {
  return (
    <Card role="region" aria-labelledby="contact-settings-heading" className="space-y-4">
      <h2 id="contact-settings-heading" className="text-lg font-semibold">
        Contact Form Settings
      </h2>
      <p className="text-sm text-muted-foreground">
        These settings are read-only. They are set with environment variables on the server and take effect when it restarts.
      </p>
      <dl className="space-y-3 text-sm">
        <div>
          <dt className="font-mono font-medium">CONTACT_TO</dt>
          <dd className="text-muted-foreground">The address that receives contact-form messages. Messages are always stored, even when no mail can be sent.</dd>
        </div>
        <div>
          <dt className="font-mono font-medium">SMTP_URL</dt>
          <dd className="text-muted-foreground">The mail server used to send contact messages and service notices. Its credentials are never shown here.</dd>
        </div>
      </dl>
    </Card>
  );
}

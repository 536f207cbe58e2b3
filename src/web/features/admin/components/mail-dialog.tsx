import { linksIn } from '@shared/mail-outbox';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { QueryState } from '@/components/ui/query-state';
import { toast } from '@/lib/toast';
import type { OutboxMail } from '../api/get-mail-outbox';
import { useMailBody } from '../api/read-mail';

/** One mail's text, read (and recorded in the audit log) only when the admin opens it. */
export function MailDialog({ mail }: { mail: Pick<OutboxMail, 'id' | 'to_address' | 'subject'> }) {
  const [open, setOpen] = useState(false);
  return (
    <Dialog
      open={open}
      onOpenChange={setOpen}
      wide
      title={mail.subject}
      description={`To ${mail.to_address}. Reading this mail is recorded in the audit log.`}
      trigger={
        <Button variant="outline" size="sm" aria-label={`Open the mail "${mail.subject}" to ${mail.to_address}`}>
          Open
        </Button>
      }
    >
      {open && <MailBody id={mail.id} />}
    </Dialog>
  );
}

function MailBody({ id }: { id: number }) {
  const body = useMailBody(id);
  return (
    <QueryState query={body} loading="Loading the mail..." failed="Failed to load the mail." failedClassName="text-sm">
      {(mail) => {
        const links = linksIn(mail.text_body);
        return (
          <div className="space-y-4">
            {links.length > 0 && (
              <section aria-labelledby="mail-links-heading" className="space-y-2">
                <h3 id="mail-links-heading" className="text-sm font-medium">
                  Links in this mail
                </h3>
                <ul className="space-y-2">
                  {links.map((link) => (
                    <li key={link} className="flex items-start gap-2">
                      <code className="min-w-0 flex-1 break-all rounded bg-muted px-2 py-1 text-xs">{link}</code>
                      <Button
                        variant="outline"
                        size="sm"
                        onClick={() =>
                          void navigator.clipboard.writeText(link).then(
                            () => toast.success('Link copied'),
                            () => toast.error('Could not copy the link'),
                          )
                        }
                      >
                        Copy
                      </Button>
                    </li>
                  ))}
                </ul>
              </section>
            )}
            <pre className="max-h-96 overflow-auto whitespace-pre-wrap break-words rounded-md border border-border p-3 text-sm">{mail.text_body}</pre>
          </div>
        );
      }}
    </QueryState>
  );
}

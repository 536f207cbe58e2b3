import { ADMIN_PAGE_SIZE } from '@shared/audit-actions';
import { OUTBOX_STATUS_LABELS } from '@shared/mail-outbox';
import { Search } from 'lucide-react';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Input } from '@/components/ui/input';
import { Pagination } from '@/components/ui/pagination';
import { QueryState } from '@/components/ui/query-state';
import { TableScroll } from '@/components/ui/table-scroll';
import { useFormat } from '@/lib/format';
import { useMailOutbox } from '../api/get-mail-outbox';
import { MailDialog } from './mail-dialog';
import { PageCount } from '@/components/ui/page-count';

/** Every mail the server sent or kept, newest first, searchable by recipient; a body only on demand (MailDialog). */
export function MailOutbox() {
  const f = useFormat();
  const [draft, setDraft] = useState('');
  const [to, setTo] = useState('');
  const [page, setPage] = useState(0);
  const outbox = useMailOutbox({ to: to || null, limit: ADMIN_PAGE_SIZE, offset: page * ADMIN_PAGE_SIZE });
  const total = outbox.data?.total ?? 0;
  return (
    <Card role="region" aria-labelledby="outbox-heading" className="space-y-4">
      <div>
        <h2 id="outbox-heading" className="text-lg font-semibold">
          Mail outbox
        </h2>
        <p className="text-sm text-muted-foreground">Opening a mail is recorded in the audit log.</p>
      </div>
      <form
        role="search"
        className="flex gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          setTo(draft.trim());
          setPage(0);
        }}
      >
        <Input
          type="search"
          aria-label="Search mail by recipient"
          placeholder="Search by recipient..."
          maxLength={320}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
        />
        <Button type="submit" variant="outline">
          <Search className="size-4" aria-hidden="true" /> Search
        </Button>
      </form>
      <QueryState query={outbox} loading="Loading the outbox..." failed="Failed to load the outbox." failedClassName="text-sm">
        {(data) =>
          data.rows.length === 0 ? (
            <p className="text-muted-foreground">No mail</p>
          ) : (
            <>
              <PageCount offset={page * ADMIN_PAGE_SIZE} shown={data.rows.length} total={total} />
              <TableScroll label="Mail outbox table">
                <table className="w-full text-sm">
                  <thead className="text-left text-muted-foreground">
                    <tr>
                      <th className="py-2 pr-4 font-medium">Created</th>
                      <th className="py-2 pr-4 font-medium">Recipient</th>
                      <th className="py-2 pr-4 font-medium">Subject</th>
                      <th className="py-2 pr-4 font-medium">Status</th>
                      <th className="py-2 pr-4 font-medium">Sent</th>
                      <th className="py-2 font-medium">
                        <span className="sr-only">Actions</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody className="divide-y divide-border align-top">
                    {data.rows.map((m) => (
                      <tr key={m.id}>
                        <td className="whitespace-nowrap py-2 pr-4">{f.dateTime(m.created_at)}</td>
                        <td className="whitespace-nowrap py-2 pr-4">{m.to_address}</td>
                        <td className="min-w-48 py-2 pr-4">
                          {m.subject}
                          {m.attachment_names && <p className="mt-1 break-words text-xs text-muted-foreground">Attached: {m.attachment_names.join(', ')}</p>}
                        </td>
                        <td className="py-2 pr-4">
                          {OUTBOX_STATUS_LABELS[m.status] ?? m.status}
                          {m.error && <p className="mt-1 max-w-xs break-words text-xs text-muted-foreground">{m.error}</p>}
                        </td>
                        <td className="whitespace-nowrap py-2 pr-4">{m.sent_at ? f.dateTime(m.sent_at) : '—'}</td>
                        <td className="py-2 text-right">
                          <MailDialog mail={m} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableScroll>
            </>
          )
        }
      </QueryState>
      <Pagination page={page} pages={Math.max(1, Math.ceil(total / ADMIN_PAGE_SIZE))} onPage={setPage} />
    </Card>
  );
}

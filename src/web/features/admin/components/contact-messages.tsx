import { ADMIN_PAGE_SIZE } from '@shared/audit-actions';
import { CONTACT_TOPIC_LABELS } from '@shared/admin-labels';
import { useState } from 'react';
import { Card } from '@/components/ui/card';
import { Pagination } from '@/components/ui/pagination';
import { QueryState } from '@/components/ui/query-state';
import { TableScroll } from '@/components/ui/table-scroll';
import { useFormat } from '@/lib/format';
import { useContactMessages } from '../api/get-contact-messages';
import { PageCount } from '@/components/ui/page-count';

/** What visitors sent through the public contact form, newest first. */
export function ContactMessages() {
  const f = useFormat();
  const [page, setPage] = useState(0);
  const messages = useContactMessages({ limit: ADMIN_PAGE_SIZE, offset: page * ADMIN_PAGE_SIZE });
  const total = messages.data?.total ?? 0;
  return (
    <Card role="region" aria-labelledby="contact-messages-heading" className="space-y-4">
      <h2 id="contact-messages-heading" className="text-lg font-semibold">
        Contact messages
      </h2>
      <QueryState query={messages} loading="Loading contact messages..." failed="Failed to load the contact messages." failedClassName="text-sm">
        {(data) =>
          data.rows.length === 0 ? (
            <p className="text-muted-foreground">No contact messages</p>
          ) : (
            <>
              <PageCount offset={page * ADMIN_PAGE_SIZE} shown={data.rows.length} total={total} />
              <TableScroll label="Contact messages table">
                <table className="w-full text-sm">
                  <thead className="text-left text-muted-foreground">
                    <tr>
                      <th className="py-2 pr-4 font-medium">Received</th>
                      <th className="py-2 pr-4 font-medium">From</th>
                      <th className="py-2 pr-4 font-medium">Topic</th>
                      <th className="py-2 font-medium">Message</th>
                    </tr>
                  </thead>
                  <tbody className="divide-y divide-border align-top">
                    {data.rows.map((m) => (
                      <tr key={m.id}>
                        <td className="whitespace-nowrap py-2 pr-4">{f.dateTime(m.created_at)}</td>
                        <td className="py-2 pr-4">
                          <span className="font-medium">{m.name}</span>
                          <a href={`mailto:${m.email}`} className="block whitespace-nowrap text-primary underline-offset-4 hover:underline">
                            {m.email}
                          </a>
                        </td>
                        <td className="py-2 pr-4">{CONTACT_TOPIC_LABELS[m.topic as keyof typeof CONTACT_TOPIC_LABELS] ?? m.topic}</td>
                        <td className="min-w-64 whitespace-pre-wrap break-words py-2">{m.message}</td>
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

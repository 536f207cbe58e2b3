import { Search } from 'lucide-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Pagination } from '@/components/ui/pagination';
import { Input } from '@/components/ui/input';
import { paths } from '@/config/paths';
import { QueryState } from '@/components/ui/query-state';
import { useFormat } from '@/lib/format';
import { useUserStats } from '../api/get-user-stats';
import { AddCreditDialog } from './add-credit-dialog';
import { CreateUserDialog } from './create-user-dialog';
import { NegativeBalanceBadge } from './negative-balance-badge';
import { TableScroll } from '@/components/ui/table-scroll';

const PAGE_SIZE = 20;

/** Users with server-side search by e-mail or full name, and pagination. */
export function UserManagement() {
  const f = useFormat();
  const [draft, setDraft] = useState('');
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(0);
  const stats = useUserStats(search, PAGE_SIZE, page * PAGE_SIZE);
  const pages = Math.max(1, Math.ceil((stats.data?.total ?? 0) / PAGE_SIZE));

  return (
    <Card role="region" aria-labelledby="users-heading">
      <div className="flex items-center justify-between gap-2">
        <h2 id="users-heading" className="text-lg font-semibold">
          Users
        </h2>
        <CreateUserDialog />
      </div>
      <form
        role="search"
        className="mt-4 flex gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          setSearch(draft.trim());
          setPage(0);
        }}
      >
        <Input
          type="search"
          aria-label="Search users by email or name"
          placeholder="Search by email or name..."
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
        />
        <Button type="submit" variant="outline">
          <Search className="size-4" aria-hidden="true" /> Search
        </Button>
      </form>
      <QueryState query={stats} loading="Loading users..." failed="Failed to load users data." failedClassName="mt-4">
        {(data) =>
          data.rows.length === 0 ? (
            <p className="mt-4 text-muted-foreground">No users found</p>
          ) : (
            <TableScroll label="Users table" className="mt-4">
              <table className="w-full text-sm">
                <thead className="text-left text-muted-foreground">
                  <tr>
                    <th className="whitespace-nowrap py-2 pr-4 font-medium">Email</th>
                    <th className="whitespace-nowrap py-2 pr-4 font-medium">Full name</th>
                    <th className="whitespace-nowrap py-2 pr-4 font-medium">Balance</th>
                    <th className="whitespace-nowrap py-2 pr-4 font-medium">Active services</th>
                    <th className="whitespace-nowrap py-2 pr-4 font-medium">Last login</th>
                    <th className="py-2 font-medium">
                      <span className="sr-only">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody className="divide-y divide-border">
                  {data.rows.map((u) => (
                    <tr key={u.user_id}>
                      {/* Names whole, each on one line: the table scrolls sideways instead. */}
                      <td className="whitespace-nowrap py-2 pr-4 font-medium">
                        <Link to={paths.adminUser(u.user_id)} className="text-primary hover:underline">
                          {u.email}
                        </Link>
                      </td>
                      <td className="whitespace-nowrap py-2 pr-4">{u.full_name || 'Not provided'}</td>
                      <td className="whitespace-nowrap py-2 pr-4">
                        {f.money(u.balance)} <NegativeBalanceBadge balance={Number(u.balance)} />
                      </td>
                      <td className="py-2 pr-4">{u.active_services_count}</td>
                      <td className="py-2 pr-4">{u.last_sign_in_at ? f.dateTime(u.last_sign_in_at) : 'Never'}</td>
                      <td className="py-2 text-right">
                        <AddCreditDialog user={u} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
          )
        }
      </QueryState>
      <Pagination page={page} pages={pages} onPage={setPage} className="mt-4" />
    </Card>
  );
}

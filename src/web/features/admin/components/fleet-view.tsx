import { FLEET_PAGE_SIZE, FLEET_STATES, NODE_STATE_LABELS, type FleetSort, type FleetState } from '@shared/node-health';
import { useQueryClient } from '@tanstack/react-query';
import { ArrowDown, ArrowUp, Search } from 'lucide-react';
import { useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Pagination } from '@/components/ui/pagination';
import { Input, NativeSelect } from '@/components/ui/input';
import { paths } from '@/config/paths';
import { NodeStateBadge, seenAgo } from '@/components/ui/node-state-badge';
import { QueryState } from '@/components/ui/query-state';
import { useFormat } from '@/lib/format';
import { useFleet, type FleetRow } from '../api/get-fleet';
import { useFleetCounts } from '../api/get-fleet-counts';
import { MonthlyMargin } from './monthly-margin';
import { TableScroll } from '@/components/ui/table-scroll';
import { adminKeys } from '@/lib/query-keys';

/** The table's columns, each a sort of FLEET_SORTS; a first click sorts text A to Z and the rest largest (newest) first. */
const COLUMNS: { sort: FleetSort; label: string; descending: boolean }[] = [
  { sort: 'name', label: 'Service', descending: false },
  { sort: 'owner', label: 'Owner', descending: false },
  { sort: 'product', label: 'Product', descending: false },
  { sort: 'state', label: 'State', descending: false },
  { sort: 'host', label: 'Host', descending: false },
  { sort: 'last_seen', label: 'Last seen', descending: true },
  { sort: 'restarts', label: 'Restarts (24 h)', descending: true },
  { sort: 'margin', label: 'Margin / month', descending: true },
  { sort: 'created', label: 'Created', descending: true },
];

/** Why a row is in its state, when the server said: the engine's reason for a node down, the install's for a failure. */
const reasonOf = (r: FleetRow) => (r.state === 'failed' ? r.provisioning_error : r.state === 'offline' || r.state === 'restarting' ? r.reason : null);

/**
 * Every user's services by their node's state: counts that filter, a state filter, a search by
 * owner, service, product or host, sorting by column, and pages of FLEET_PAGE_SIZE, all on the server. `actions` renders a row's buttons (Retry, Logs: other
 * features' components, composed in by the admin route); `refresh` reloads the fleet after one.
 */
export function FleetView({ actions }: { actions: (row: FleetRow, refresh: () => void) => ReactNode }) {
  const f = useFormat();
  const queryClient = useQueryClient();
  const [state, setState] = useState<FleetState | null>(null);
  const [draft, setDraft] = useState('');
  const [search, setSearch] = useState('');
  const [sort, setSort] = useState<{ by: FleetSort; descending: boolean }>({ by: 'last_seen', descending: true });
  const [page, setPage] = useState(0);
  const counts = useFleetCounts();
  const fleet = useFleet({ state, search, sort: sort.by, descending: sort.descending, limit: FLEET_PAGE_SIZE, offset: page * FLEET_PAGE_SIZE });
  const pages = Math.max(1, Math.ceil((fleet.data?.total ?? 0) / FLEET_PAGE_SIZE));
  const refresh = () => void queryClient.invalidateQueries({ queryKey: adminKeys.fleet() });

  const filter = (next: FleetState | null) => {
    setState(next);
    setPage(0);
  };
  const sortBy = (column: (typeof COLUMNS)[number]) => {
    setSort((s) => (s.by === column.sort ? { by: s.by, descending: !s.descending } : { by: column.sort, descending: column.descending }));
    setPage(0);
  };

  return (
    <Card role="region" aria-labelledby="fleet-heading" className="space-y-4">
      <h2 id="fleet-heading" className="text-lg font-semibold">
        Fleet
      </h2>
      {counts.isError ? (
        <p role="alert" className="text-sm text-destructive">
          Failed to load the counts.
        </p>
      ) : (
        <div role="group" aria-label="Services by state" className="flex flex-wrap gap-2">
          {FLEET_STATES.map((s) => (
            <Button key={s} variant={state === s ? 'default' : 'outline'} size="sm" aria-pressed={state === s} onClick={() => filter(state === s ? null : s)}>
              {NODE_STATE_LABELS[s]} <span className="font-bold">{counts.data?.[s] ?? 0}</span>
            </Button>
          ))}
        </div>
      )}
      <div className="flex flex-col gap-2 lg:flex-row lg:items-center">
        <div className="flex items-center gap-2">
          <label htmlFor="fleet-state" className="text-sm font-medium">
            State
          </label>
          {/* A field fills its box: this box keeps the select narrow. */}
          <div className="w-56">
            <NativeSelect id="fleet-state" value={state ?? ''} onChange={(e) => filter((e.target.value || null) as FleetState | null)}>
              <option value="">All states</option>
              {FLEET_STATES.map((s) => (
                <option key={s} value={s}>
                  {NODE_STATE_LABELS[s]}
                </option>
              ))}
            </NativeSelect>
          </div>
        </div>
        <form
          role="search"
          className="flex flex-1 gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            setSearch(draft.trim());
            setPage(0);
          }}
        >
          <Input
            type="search"
            aria-label="Search the fleet by owner, service, product or host"
            placeholder="Owner, service, product or host..."
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
          />
          <Button type="submit" variant="outline">
            <Search className="size-4" aria-hidden="true" /> Search
          </Button>
        </form>
      </div>
      <QueryState query={fleet} loading="Loading the fleet..." failed="Failed to load the fleet." failedClassName="text-sm">
        {(data) =>
          data.rows.length === 0 ? (
            <p className="text-muted-foreground">No services found</p>
          ) : (
            <TableScroll label="Fleet table">
              <table className="w-full text-sm">
                <thead className="text-left text-muted-foreground">
                  <tr>
                    {COLUMNS.map((c) => {
                      const active = sort.by === c.sort;
                      return (
                        <th
                          key={c.sort}
                          className="whitespace-nowrap py-2 pr-4 font-medium"
                          aria-sort={active ? (sort.descending ? 'descending' : 'ascending') : undefined}
                        >
                          <button type="button" className="inline-flex items-center gap-1 hover:text-foreground" onClick={() => sortBy(c)}>
                            {c.label}
                            {active &&
                              (sort.descending ? <ArrowDown className="size-3" aria-hidden="true" /> : <ArrowUp className="size-3" aria-hidden="true" />)}
                          </button>
                        </th>
                      );
                    })}
                    <th className="py-2 font-medium">
                      <span className="sr-only">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody className="divide-y divide-border">
                  {data.rows.map((r) => (
                    <tr key={r.service_id}>
                      {/* Names whole, each on one line (a hyphen is no place to break an address or a host): the table scrolls sideways instead. */}
                      <td className="whitespace-nowrap py-2 pr-4 font-medium">{r.name}</td>
                      <td className="whitespace-nowrap py-2 pr-4">
                        <Link to={paths.adminUser(r.user_id)} className="text-primary hover:underline">
                          {r.email}
                        </Link>
                      </td>
                      <td className="whitespace-nowrap py-2 pr-4">{r.product}</td>
                      <td className="py-2 pr-4">
                        <NodeStateBadge state={r.state} />
                        {reasonOf(r) && <p className="mt-1 max-w-xs break-words text-xs text-muted-foreground">{reasonOf(r)}</p>}
                      </td>
                      <td className="whitespace-nowrap py-2 pr-4">{r.host}</td>
                      <td className="whitespace-nowrap py-2 pr-4" title={r.last_seen_at ? f.dateTime(r.last_seen_at) : undefined}>
                        {r.last_seen_at ? seenAgo(f, r.last_seen_at) : 'Never'}
                      </td>
                      <td className="py-2 pr-4">{r.restarts_24h}</td>
                      <td className="whitespace-nowrap py-2 pr-4">
                        <MonthlyMargin value={r.monthly_margin} serviceState={r.service_state} />
                      </td>
                      <td className="whitespace-nowrap py-2 pr-4">{f.date(r.created_at)}</td>
                      <td className="py-2">
                        <div className="flex justify-end gap-2">{actions(r, refresh)}</div>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
          )
        }
      </QueryState>
      <Pagination page={page} pages={pages} onPage={setPage} />
    </Card>
  );
}

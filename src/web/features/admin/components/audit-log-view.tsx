import { ADMIN_PAGE_SIZE, AUDIT_ACTION_LABELS, auditActionLabel } from '@shared/audit-actions';
import { Link, useSearchParams } from 'react-router';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { FormField } from '@/components/ui/form-field';
import { Input, NativeSelect } from '@/components/ui/input';
import { Pagination } from '@/components/ui/pagination';
import { QueryState } from '@/components/ui/query-state';
import { TableScroll } from '@/components/ui/table-scroll';
import { paths } from '@/config/paths';
import { dayStart, nextDay } from '@/lib/day-start';
import { useFormat, useFormatPrefs } from '@/lib/format';
import { useAuditLog, type AuditEntry } from '../api/get-audit-log';
import { describeChange } from './audit-change';
import { PageCount } from '@/components/ui/page-count';
import { Truncated } from './truncated';

/** admin_audit_log refuses a longer text filter. */
const FILTER_MAX = 320;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The filters and page as the address holds them (?tab=audit&action=…&page=2), each checked: a hand-edited address shows the whole log. */
function readFilters(params: URLSearchParams) {
  const text = (name: string) => params.get(name)?.trim().slice(0, FILTER_MAX) || '';
  const day = (name: string) => (DAY.test(params.get(name) ?? '') ? params.get(name)! : '');
  const page = Number(params.get('page'));
  return {
    action: text('action'),
    actor: text('actor'),
    target: text('target'),
    from: day('from'),
    to: day('to'),
    page: Number.isInteger(page) && page > 1 ? page : 1,
  };
}
type Filters = ReturnType<typeof readFilters>;

// Sorted by what a person reads, not by the stored name.
const ACTION_OPTIONS = Object.entries(AUDIT_ACTION_LABELS).sort(([, a], [, b]) => a.localeCompare(b));

/**
 * The admin audit log, newest first: who did what to whom, the change, from where. Its filters
 * and page live in the address, so a reload or a shared link shows the same entries. Dates are
 * whole days in the admin's time zone, "to" included.
 */
export function AuditLogView() {
  const f = useFormat();
  const { timeZone } = useFormatPrefs();
  const [params, setParams] = useSearchParams();
  const filters = readFilters(params);
  const log = useAuditLog({
    action: filters.action || null,
    actor: filters.actor || null,
    target: filters.target || null,
    from: filters.from ? dayStart(filters.from, timeZone) : null,
    to: filters.to ? dayStart(nextDay(filters.to), timeZone) : null,
    limit: ADMIN_PAGE_SIZE,
    offset: (filters.page - 1) * ADMIN_PAGE_SIZE,
  });
  const total = log.data?.total ?? 0;

  const show = (next: Filters) => {
    const entries = Object.entries(next).filter(([name, v]) => v !== '' && !(name === 'page' && v === 1));
    // Replaced, as the tab is: Back leaves the admin area rather than walking back through filters.
    setParams(new URLSearchParams([['tab', 'audit'], ...entries.map(([k, v]) => [k, String(v)])]), { replace: true });
  };

  return (
    <Card role="region" aria-labelledby="audit-heading" className="space-y-4">
      <h2 id="audit-heading" className="text-lg font-semibold">
        Audit log
      </h2>
      {/* Keyed by the address: a reload, Back or a link puts its filters in the fields. */}
      <AuditFilters key={params.toString()} filters={filters} onApply={(next) => show({ ...next, page: 1 })} />
      <QueryState query={log} loading="Loading the audit log..." failed="Failed to load the audit log." failedClassName="text-sm">
        {(data) =>
          data.rows.length === 0 ? (
            <p className="text-muted-foreground">No audit entries</p>
          ) : (
            <>
              <PageCount offset={(filters.page - 1) * ADMIN_PAGE_SIZE} shown={data.rows.length} total={total} />
              <TableScroll label="Audit log table">
                <table className="w-full text-sm">
                  <thead className="text-left text-muted-foreground">
                    <tr>
                      {['Time', 'Actor', 'Action', 'Target', 'Change', 'Address', 'User agent'].map((h) => (
                        <th key={h} className="whitespace-nowrap py-2 pr-4 font-medium">
                          {h}
                        </th>
                      ))}
                    </tr>
                  </thead>
                  <tbody className="divide-y divide-border align-top">
                    {data.rows.map((e) => (
                      <tr key={e.id}>
                        <td className="whitespace-nowrap py-2 pr-4">{f.dateTime(e.created_at)}</td>
                        <td className="whitespace-nowrap py-2 pr-4">{e.actor}</td>
                        <td className="whitespace-nowrap py-2 pr-4 font-medium">{auditActionLabel(e.action)}</td>
                        <td className="whitespace-nowrap py-2 pr-4">
                          <Target entry={e} />
                        </td>
                        <td className="py-2 pr-4">
                          <Change entry={e} />
                        </td>
                        <td className="py-2 pr-4">{e.address ? <Truncated text={e.address} max={24} /> : '—'}</td>
                        <td className="py-2 pr-4">{e.user_agent ? <Truncated text={e.user_agent} max={32} /> : '—'}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableScroll>
            </>
          )
        }
      </QueryState>
      <Pagination page={filters.page - 1} pages={Math.max(1, Math.ceil(total / ADMIN_PAGE_SIZE))} onPage={(p) => show({ ...filters, page: p + 1 })} />
    </Card>
  );
}

function AuditFilters({ filters, onApply }: { filters: Filters; onApply: (next: Filters) => void }) {
  const field = (name: keyof Omit<Filters, 'page'>) => ({ id: `audit-${name}`, name, defaultValue: filters[name] });
  return (
    <form
      role="search"
      aria-label="Filter the audit log"
      className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-5"
      onSubmit={(e) => {
        e.preventDefault();
        const data = new FormData(e.currentTarget);
        const value = (name: string) => String(data.get(name) ?? '').trim();
        onApply({ action: value('action'), actor: value('actor'), target: value('target'), from: value('from'), to: value('to'), page: 1 });
      }}
    >
      <FormField id="audit-action" label="Action">
        <NativeSelect {...field('action')}>
          <option value="">All actions</option>
          {ACTION_OPTIONS.map(([action, label]) => (
            <option key={action} value={action}>
              {label}
            </option>
          ))}
        </NativeSelect>
      </FormField>
      <FormField id="audit-actor" label="Actor">
        <Input type="search" maxLength={FILTER_MAX} placeholder="Email or cli:user" {...field('actor')} />
      </FormField>
      <FormField id="audit-target" label="Target">
        <Input type="search" maxLength={FILTER_MAX} placeholder="Email, name or id" {...field('target')} />
      </FormField>
      <FormField id="audit-from" label="From">
        <Input type="date" {...field('from')} />
      </FormField>
      <FormField id="audit-to" label="To">
        <Input type="date" {...field('to')} />
      </FormField>
      <div className="flex gap-2 sm:col-span-2 lg:col-span-5">
        <Button type="submit" variant="outline">
          Filter
        </Button>
        <Button type="button" variant="ghost" onClick={() => onApply({ action: '', actor: '', target: '', from: '', to: '', page: 1 })}>
          Clear filters
        </Button>
      </div>
    </form>
  );
}

/** A user target links to the user's page; any other names its kind ("service", "mail"). */
function Target({ entry: e }: { entry: AuditEntry }) {
  const label = e.target_label ?? e.target_id ?? '—';
  if (e.target_type === 'user' && e.target_id) {
    return (
      <Link to={paths.adminUser(e.target_id)} className="text-primary underline-offset-4 hover:underline">
        {label}
      </Link>
    );
  }
  return (
    <>
      <span>{label}</span>
      <span className="block text-xs text-muted-foreground">{e.target_type}</span>
    </>
  );
}

function Change({ entry: e }: { entry: AuditEntry }) {
  const lines = describeChange(e.before, e.after);
  if (lines.length === 0) return <>—</>;
  return (
    <ul className="min-w-48 space-y-0.5">
      {lines.map((l) => (
        <li key={l.field}>
          <span className="text-muted-foreground">{l.field}</span> {l.before !== undefined && <Truncated text={l.before} max={40} />}
          {l.before !== undefined && l.after !== undefined && ' → '}
          {l.after !== undefined && <Truncated text={l.after} max={40} />}
        </li>
      ))}
    </ul>
  );
}

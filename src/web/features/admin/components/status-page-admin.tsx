import {
  IMPACT_LABELS,
  INCIDENT_IMPACTS,
  INCIDENT_STATUSES,
  STATUS_LABELS,
  incidentBodyError,
  incidentTitleError,
  type Incident,
  type IncidentImpact,
  type IncidentStatus,
} from '@shared/status-page';
import { useState } from 'react';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { FormField, InputField, invalidProps } from '@/components/ui/form-field';
import { NativeSelect, Textarea } from '@/components/ui/input';
import { QueryState } from '@/components/ui/query-state';
import { useFormat } from '@/lib/format';
import { toast } from '@/lib/toast';
import { useTouchedFields } from '@/lib/use-touched-fields';
import { useOpenIncident, usePostStatusUpdate, useStatusPageAdmin } from '../api/status-page';

const ALL = 'all';

/** Admin › Status page: open an incident on /status and follow it with updates, which are never edited. */
export function StatusPageAdmin() {
  const page = useStatusPageAdmin();
  return (
    <div className="space-y-6">
      <Card role="region" aria-labelledby="status-open-heading" className="space-y-4">
        <h2 id="status-open-heading" className="text-lg font-semibold">
          Open an incident
        </h2>
        <p className="text-sm text-muted-foreground">
          It shows on the{' '}
          <a href="/status" className="font-medium text-foreground underline underline-offset-4">
            public status page
          </a>{' '}
          within a minute. A posted update cannot be edited: correct it with another.
        </p>
        {page.data && <OpenIncidentForm products={page.data.products} />}
      </Card>
      <Card role="region" aria-labelledby="status-incidents-heading" className="space-y-4">
        <h2 id="status-incidents-heading" className="text-lg font-semibold">
          Open incidents
        </h2>
        <QueryState query={page} loading="Loading the incidents..." failed="Failed to load the incidents.">
          {(data) => {
            const open = data.incidents.filter((i) => i.resolved_at === null);
            return open.length === 0 ? (
              <p className="text-sm text-muted-foreground">No incident is open.</p>
            ) : (
              <ul className="space-y-6">
                {open.map((i) => (
                  <OpenIncident key={i.id} incident={i} />
                ))}
              </ul>
            );
          }}
        </QueryState>
      </Card>
    </div>
  );
}

function OpenIncidentForm({ products }: { products: { code: string; name: string }[] }) {
  const openIncident = useOpenIncident();
  const [title, setTitle] = useState('');
  const [product, setProduct] = useState(ALL);
  const [impact, setImpact] = useState<IncidentImpact>('minor');
  const [status, setStatus] = useState<IncidentStatus>('investigating');
  const [body, setBody] = useState('');
  const { isTouched, track, touchAll } = useTouchedFields<'title' | 'body'>();
  const problems = { title: incidentTitleError(title), body: incidentBodyError(body) };
  const shown = (field: 'title' | 'body') => (isTouched(field) && problems[field]) || undefined;

  const submit = async () => {
    try {
      await openIncident.mutateAsync({ title: title.trim(), productCode: product === ALL ? null : product, impact, status, body: body.trim() });
      toast.success('Incident opened', title.trim());
      setTitle('');
      setBody('');
    } catch (e) {
      toast.error('Failed to open the incident', e instanceof Error ? e.message : undefined);
    }
  };

  return (
    <form
      className="space-y-4"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        touchAll(['title', 'body']);
        if (!problems.title && !problems.body) void submit();
      }}
    >
      <InputField id="incident-title" label="Title" error={shown('title')} value={title} wrapper={track('title')} onChange={(e) => setTitle(e.target.value)} />
      <div className="grid gap-4 sm:grid-cols-3">
        <FormField id="incident-product" label="Affects">
          <NativeSelect id="incident-product" value={product} onChange={(e) => setProduct(e.target.value)}>
            <option value={ALL}>All services</option>
            {products.map((p) => (
              <option key={p.code} value={p.code}>
                {p.name}
              </option>
            ))}
          </NativeSelect>
        </FormField>
        <FormField id="incident-impact" label="Impact">
          <NativeSelect id="incident-impact" value={impact} onChange={(e) => setImpact(e.target.value as IncidentImpact)}>
            {INCIDENT_IMPACTS.map((v) => (
              <option key={v} value={v}>
                {IMPACT_LABELS[v]}
              </option>
            ))}
          </NativeSelect>
        </FormField>
        <StatusSelect id="incident-status" value={status} onChange={setStatus} />
      </div>
      <FormField id="incident-body" label="What is happening" error={shown('body')} wrapper={track('body')}>
        <Textarea
          id="incident-body"
          className="min-h-20"
          value={body}
          onChange={(e) => setBody(e.target.value)}
          {...invalidProps('incident-body', shown('body'))}
        />
      </FormField>
      <Button type="submit" disabled={openIncident.isPending}>
        {openIncident.isPending ? 'Opening...' : 'Open incident'}
      </Button>
    </form>
  );
}

function StatusSelect({ id, value, onChange }: { id: string; value: IncidentStatus; onChange: (v: IncidentStatus) => void }) {
  return (
    <FormField id={id} label="Status">
      <NativeSelect id={id} value={value} onChange={(e) => onChange(e.target.value as IncidentStatus)}>
        {INCIDENT_STATUSES.map((v) => (
          <option key={v} value={v}>
            {STATUS_LABELS[v]}
          </option>
        ))}
      </NativeSelect>
    </FormField>
  );
}

function OpenIncident({ incident }: { incident: Incident }) {
  const f = useFormat();
  const post = usePostStatusUpdate();
  const [status, setStatus] = useState<IncidentStatus>('monitoring');
  const [body, setBody] = useState('');
  const { isTouched, track, touchAll } = useTouchedFields<'body'>();
  const problem = incidentBodyError(body);
  const shown = (isTouched('body') && problem) || undefined;
  const bodyId = `incident-${incident.id}-body`;

  const submit = async () => {
    try {
      await post.mutateAsync({ incidentId: incident.id, status, body: body.trim() });
      toast.success('Update posted', `${STATUS_LABELS[status]}: ${incident.title}`);
      setBody('');
    } catch (e) {
      toast.error('Failed to post the update', e instanceof Error ? e.message : undefined);
    }
  };

  return (
    <li className="space-y-3" aria-label={incident.title}>
      <h3 className="font-semibold">
        {incident.title} <Badge variant="outline">{IMPACT_LABELS[incident.impact]}</Badge>
      </h3>
      <ol className="space-y-2 border-l-2 border-border pl-3 text-sm">
        {incident.updates.map((u) => (
          <li key={u.posted_at + u.status}>
            <p>
              <span className="font-medium">{STATUS_LABELS[u.status]}</span> · {f.dateTime(u.posted_at)}
            </p>
            <p className="whitespace-pre-line text-muted-foreground">{u.body}</p>
          </li>
        ))}
      </ol>
      <form
        className="space-y-3"
        noValidate
        aria-label={`Post an update to ${incident.title}`}
        onSubmit={(e) => {
          e.preventDefault();
          touchAll(['body']);
          if (!problem) void submit();
        }}
      >
        <StatusSelect id={`incident-${incident.id}-status`} value={status} onChange={setStatus} />
        <FormField id={bodyId} label="Update" error={shown} wrapper={track('body')}>
          <Textarea id={bodyId} className="min-h-20" value={body} onChange={(e) => setBody(e.target.value)} {...invalidProps(bodyId, shown)} />
        </FormField>
        <Button type="submit" variant="outline" disabled={post.isPending}>
          {post.isPending ? 'Posting...' : 'Post update'}
        </Button>
      </form>
    </li>
  );
}

import { Card } from '@/components/ui/card';
import { useFormat } from '@/lib/format';

export function AccountStatusCard({ memberSince }: { memberSince: string | null | undefined }) {
  const f = useFormat();
  const valid = memberSince && !Number.isNaN(Date.parse(memberSince));
  return (
    <Card role="region" aria-labelledby="status-heading">
      <h2 id="status-heading" className="text-lg font-semibold">
        Account Status
      </h2>
      <dl className="mt-4 space-y-2 text-sm">
        <div className="flex justify-between gap-4">
          <dt className="text-muted-foreground">Account type</dt>
          <dd className="font-medium">Standard</dd>
        </div>
        <div className="flex justify-between gap-4">
          <dt className="text-muted-foreground">Member since</dt>
          <dd className="font-medium">{valid ? f.date(memberSince) : 'N/A'}</dd>
        </div>
      </dl>
    </Card>
  );
}

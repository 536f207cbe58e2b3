import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { FormField, invalidProps } from '@/components/ui/form-field';
import { Input } from '@/components/ui/input';
import { QueryState } from '@/components/ui/query-state';
import { errorText } from '@/lib/error-text';
import { useFormat } from '@/lib/format';
import { toast } from '@/lib/toast';
import { useThreshold } from '../api/get-threshold';
import { useSetThreshold } from '../api/set-threshold';
import { parseThreshold } from '../channel-form';
import { notificationTexts as t } from '../notification-texts';

function ThresholdForm({ userId, saved }: { userId: string; saved: number | null }) {
  const [text, setText] = useState(saved === null ? '' : String(saved));
  const [error, setError] = useState<string | null>(null);
  const set = useSetThreshold(userId);
  const f = useFormat();

  const save = async () => {
    const parsed = parseThreshold(text);
    if ('error' in parsed) return setError(parsed.error);
    try {
      await set.mutateAsync(parsed.amount);
      toast.success(t.thresholdSaved, parsed.amount === null ? t.thresholdOff : t.thresholdSavedText(f.money(parsed.amount)));
    } catch (e) {
      setError(errorText(e));
    }
  };

  return (
    <form
      noValidate
      className="mt-4 flex flex-col gap-3 sm:flex-row sm:items-start"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <div className="sm:w-60">
        <FormField id="low-balance-threshold" label={t.thresholdLabel} error={error ?? undefined}>
          <Input
            id="low-balance-threshold"
            inputMode="decimal"
            autoComplete="off"
            value={text}
            onChange={(e) => {
              setText(e.target.value);
              setError(null);
            }}
            {...invalidProps('low-balance-threshold', error ?? undefined)}
          />
        </FormField>
      </div>
      <Button type="submit" className="sm:mt-7" disabled={set.isPending}>
        {set.isPending ? t.thresholdSaving : t.thresholdSave}
      </Button>
    </form>
  );
}

/** The balance under which a Low balance notification goes out: an amount in USD, or empty for none. Saved by its button. */
export function ThresholdCard({ userId }: { userId: string }) {
  const threshold = useThreshold(userId);
  return (
    <Card role="region" aria-labelledby="threshold-heading">
      <h2 id="threshold-heading" className="text-lg font-semibold">
        {t.thresholdHeading}
      </h2>
      <p className="mt-1 text-sm text-muted-foreground">{t.thresholdIntro}</p>
      <QueryState query={threshold} loading={t.loading} failed={t.failed} failedClassName="mt-4 text-sm">
        {(saved) => <ThresholdForm userId={userId} saved={saved} />}
      </QueryState>
    </Card>
  );
}

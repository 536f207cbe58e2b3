import { Tabs as T } from 'radix-ui';
import type { ReactNode } from 'react';

/** Tabs on radix: arrow keys move between tabs; each panel is labelled by its tab. */
export function Tabs({ tabs, defaultValue }: { tabs: { value: string; label: string; content: ReactNode }[]; defaultValue: string }) {
  return (
    <T.Root defaultValue={defaultValue}>
      <T.List className="inline-flex rounded-lg bg-muted p-1">
        {tabs.map((t) => (
          <T.Trigger
            key={t.value}
            value={t.value}
            className="rounded-md px-3 py-1.5 text-sm font-medium data-[state=active]:bg-background data-[state=active]:shadow"
          >
            {t.label}
          </T.Trigger>
        ))}
      </T.List>
      {tabs.map((t) => (
        <T.Content key={t.value} value={t.value} className="mt-6">
          {t.content}
        </T.Content>
      ))}
    </T.Root>
  );
}

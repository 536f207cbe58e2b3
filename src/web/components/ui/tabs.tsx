import { useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';

export type TabItem = { value: string; label: string; content: ReactNode };

/**
 * Tabs in the WAI-ARIA pattern (arrow keys, Home and End move between tabs; one tab stop).
 * Our own rather than Radix's: the home page needs nothing more, and Radix's costs 9 KB there.
 */
export function Tabs({ items, label, defaultValue }: { items: readonly TabItem[]; label: string; defaultValue: string }) {
  const [active, setActive] = useState(defaultValue);
  const id = useId();
  const tabs = useRef<(HTMLButtonElement | null)[]>([]);
  const onKeyDown = (e: KeyboardEvent, index: number) => {
    const last = items.length - 1;
    const next = { ArrowRight: index === last ? 0 : index + 1, ArrowLeft: index === 0 ? last : index - 1, Home: 0, End: last }[e.key];
    if (next === undefined) return;
    e.preventDefault();
    setActive(items[next]!.value);
    tabs.current[next]?.focus();
  };
  return (
    <div>
      <div role="tablist" aria-label={label} className="grid grid-cols-3 rounded-lg bg-muted p-1">
        {items.map((t, i) => {
          const selected = t.value === active;
          return (
            <button
              key={t.value}
              ref={(el) => {
                tabs.current[i] = el;
              }}
              type="button"
              role="tab"
              id={`${id}-tab-${t.value}`}
              aria-selected={selected}
              aria-controls={`${id}-panel-${t.value}`}
              tabIndex={selected ? 0 : -1}
              onClick={() => setActive(t.value)}
              onKeyDown={(e) => onKeyDown(e, i)}
              className={`rounded-md px-3 py-2 text-sm font-medium ${selected ? 'bg-background text-foreground shadow' : 'text-muted-foreground'}`}
            >
              {t.label}
            </button>
          );
        })}
      </div>
      {items.map((t) => (
        <div
          key={t.value}
          role="tabpanel"
          id={`${id}-panel-${t.value}`}
          aria-labelledby={`${id}-tab-${t.value}`}
          hidden={t.value !== active}
          tabIndex={0}
          className="mt-6 focus-visible:outline-none"
        >
          {t.content}
        </div>
      ))}
    </div>
  );
}

import { useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';

export type TabItem = { value: string; label: string; content: ReactNode };

/**
 * Tabs in the WAI-ARIA pattern: arrow keys, Home and End move between tabs, one tab stop, each
 * panel labelled by its tab. Our own rather than Radix's: nothing more is needed, and Radix's
 * costs 9 KB on the home page. `fill` stretches the tabs over the full width. `lazy` renders a
 * panel's content only while its tab is chosen (a panel that reads and polls data reads nothing
 * unseen); otherwise every panel is in the page, as the prerendered home page needs. With `value`
 * the caller holds the chosen tab (in the URL, say) and hears of each choice by `onValueChange`.
 */
export function Tabs({
  tabs,
  defaultValue,
  label,
  fill = false,
  lazy = false,
  value,
  onValueChange,
}: {
  tabs: readonly TabItem[];
  defaultValue: string;
  label?: string;
  fill?: boolean;
  lazy?: boolean;
  value?: string;
  onValueChange?: (value: string) => void;
}) {
  const [own, setOwn] = useState(defaultValue);
  const active = value ?? own;
  const setActive = (next: string) => {
    setOwn(next);
    onValueChange?.(next);
  };
  const id = useId();
  const buttons = useRef<(HTMLButtonElement | null)[]>([]);
  const onKeyDown = (e: KeyboardEvent, index: number) => {
    const last = tabs.length - 1;
    const next = { ArrowRight: index === last ? 0 : index + 1, ArrowLeft: index === 0 ? last : index - 1, Home: 0, End: last }[e.key];
    if (next === undefined) return;
    e.preventDefault();
    setActive(tabs[next]!.value);
    buttons.current[next]?.focus();
  };
  return (
    <div>
      <div role="tablist" aria-label={label} className={`${fill ? 'grid auto-cols-fr grid-flow-col' : 'inline-flex flex-wrap'} rounded-lg bg-muted p-1`}>
        {tabs.map((t, i) => {
          const selected = t.value === active;
          return (
            <button
              key={t.value}
              ref={(el) => {
                buttons.current[i] = el;
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
      {tabs.map((t) => (
        <div
          key={t.value}
          role="tabpanel"
          id={`${id}-panel-${t.value}`}
          aria-labelledby={`${id}-tab-${t.value}`}
          hidden={t.value !== active}
          tabIndex={0}
          className="mt-6 focus-visible:outline-none"
        >
          {(!lazy || t.value === active) && t.content}
        </div>
      ))}
    </div>
  );
}

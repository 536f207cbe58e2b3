export type FaqItem = { q: string; a: string };

/** Questions as native disclosure widgets: readable without JavaScript, and by crawlers. */
export function FaqList({ items }: { items: readonly FaqItem[] }) {
  return (
    <div className="divide-y divide-border rounded-xl border border-border">
      {items.map((i) => (
        <details key={i.q} className="group p-5">
          <summary className="cursor-pointer list-none font-medium marker:hidden">
            <span className="flex items-center justify-between gap-4">
              {i.q}
              <span aria-hidden="true" className="text-muted-foreground transition-transform group-open:rotate-45">
                +
              </span>
            </span>
          </summary>
          <p className="mt-3 text-muted-foreground">{i.a}</p>
        </details>
      ))}
    </div>
  );
}

import type { ReactNode } from 'react';
import { PageHeader } from './page-header';

export type LegalSection = { heading: string; body: ReactNode };

/** The shared frame of the static legal pages. */
export function LegalPage({ title, updated, intro, sections }: { title: string; updated: string; intro: string; sections: LegalSection[] }) {
  return (
    <>
      <PageHeader title={title} lead={intro}>
        <p className="mt-2 text-sm text-muted-foreground">Last updated: {updated}</p>
      </PageHeader>
      <div className="mx-auto max-w-3xl space-y-8 px-4 py-12">
        {sections.map((s, i) => (
          <section key={s.heading} aria-labelledby={`section-${i}`}>
            <h2 id={`section-${i}`} className="text-xl font-semibold">
              {i + 1}. {s.heading}
            </h2>
            <div className="mt-3 space-y-3 leading-relaxed text-muted-foreground">{s.body}</div>
          </section>
        ))}
      </div>
    </>
  );
}

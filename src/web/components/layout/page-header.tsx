import type { ReactNode } from 'react';
import { Link } from 'react-router';

export type Crumb = { name: string; path: string };

/** A page's heading block, with a visible breadcrumb trail when the page has one. */
export function PageHeader({ title, lead, crumbs, children }: { title: string; lead?: ReactNode; crumbs?: Crumb[]; children?: ReactNode }) {
  return (
    <div className="border-b border-border bg-muted/50">
      <div className="mx-auto max-w-6xl px-4 py-12 sm:py-16">
        {crumbs && (
          <nav aria-label="Breadcrumb" className="mb-4 text-sm text-muted-foreground">
            <ol className="flex flex-wrap items-center gap-2">
              {crumbs.map((c, i) => (
                <li key={c.path} className="flex items-center gap-2">
                  {i > 0 && <span aria-hidden="true">/</span>}
                  {i === crumbs.length - 1 ? (
                    <span aria-current="page">{c.name}</span>
                  ) : (
                    <Link to={c.path} className="hover:underline">
                      {c.name}
                    </Link>
                  )}
                </li>
              ))}
            </ol>
          </nav>
        )}
        <h1 className="text-3xl font-bold tracking-tight sm:text-4xl">{title}</h1>
        {lead && <p className="mt-4 max-w-3xl text-lg text-muted-foreground">{lead}</p>}
        {children}
      </div>
    </div>
  );
}

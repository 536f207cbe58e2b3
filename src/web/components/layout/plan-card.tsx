import { Check } from 'lucide-react';
import { Link } from 'react-router';
import { Button } from '@/components/ui/button';

export type Plan = { name: string; price?: string; badge?: string; features: string[]; available: boolean; cta?: { label: string; to: string } };

/** A hosting plan. An unavailable plan says Coming Soon and offers Notify Me, which leads to the contact page. */
export function PlanCard({ plan, contactPath }: { plan: Plan; contactPath: string }) {
  const headingId = `plan-${plan.name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return (
    <article
      aria-labelledby={headingId}
      className={`relative flex flex-col rounded-xl border bg-card p-6 shadow-sm ${plan.available ? 'border-primary ring-1 ring-primary' : 'border-border'}`}
    >
      {plan.badge && <p className="absolute -top-3 left-6 rounded-full bg-primary px-3 py-0.5 text-xs font-semibold text-primary-foreground">{plan.badge}</p>}
      <h3 id={headingId} className="text-lg font-semibold">
        {plan.name}
      </h3>
      <p className="mt-3">
        {plan.available && plan.price ? (
          <>
            <span className="text-3xl font-bold">{plan.price}</span>
            <span className="text-muted-foreground">/month</span>
          </>
        ) : (
          <span className="text-xl font-semibold text-muted-foreground">Coming Soon</span>
        )}
      </p>
      <ul className="mt-5 flex-1 space-y-2 text-sm">
        {plan.features.map((f) => (
          <li key={f} className="flex gap-2">
            <Check className="mt-0.5 size-4 shrink-0 text-primary" aria-hidden="true" />
            {f}
          </li>
        ))}
      </ul>
      <div className="mt-6">
        {plan.available && plan.cta ? (
          <Button asChild className="w-full">
            <Link to={plan.cta.to}>{plan.cta.label}</Link>
          </Button>
        ) : (
          <Button asChild variant="outline" className="w-full">
            <Link to={contactPath} aria-label={`Notify Me about ${plan.name}`}>
              Notify Me
            </Link>
          </Button>
        )}
      </div>
    </article>
  );
}

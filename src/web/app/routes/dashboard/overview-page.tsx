import { BookOpen, CalendarClock, CreditCard, HelpCircle, KeyRound, Mail, Server } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { paths } from '@/config/paths';
import { useBalance } from '@/lib/balance';
import type { SignedInUser } from '@/lib/signed-in-user';
import { NegativeBalanceBanner } from '@/features/billing/components/negative-balance-banner';
import { useNextPayment } from '@/features/services/api/get-next-payment';
import { useServices } from '@/features/services/api/get-services';
import { useFormat, type Formatters } from '@/lib/format';

function StatCard({ title, icon, value, note }: { title: string; icon: ReactNode; value: ReactNode; note?: string }) {
  return (
    <Card role="group" aria-label={title}>
      <div className="flex items-center justify-between text-sm font-medium text-muted-foreground">
        <h2>{title}</h2>
        {icon}
      </div>
      <p className="mt-2 text-2xl font-bold">{value}</p>
      {note && <p className="text-xs text-muted-foreground">{note}</p>}
    </Card>
  );
}

/** The Next Payment card's figure and line: the next renewal's amount and date, or spec §2's dash and "No scheduled payments". */
function nextPaymentText(next: ReturnType<typeof useNextPayment>, f: Formatters): { value: string; note?: string } {
  if (next.isError) return { value: '-', note: 'Failed to load the next payment' };
  if (next.data === undefined) return { value: '-' };
  if (next.data === null) return { value: '-', note: 'No scheduled payments' };
  const { amount, service_name: name, renews_at: renewsAt, suspended } = next.data;
  return { value: f.money(amount), note: suspended ? `Due now: ${name} is suspended until a top-up renews it` : `${name} renews on ${f.date(renewsAt)}` };
}

const STEPS = [
  { title: 'Add funds', text: 'Top up your balance on the Billing page. Funds never expire.', to: paths.dashboardBilling },
  { title: 'Get your key', text: 'Get the API key (or Master Node License Key) for your node.', to: paths.galaApiKey },
  { title: 'Create a service', text: 'Choose a plan, name your node and paste your key.', to: paths.dashboardServices },
  { title: 'Watch it run', text: 'Installation takes up to 10 minutes; the status turns Active.', to: paths.dashboardServices },
];

export function OverviewPage({ user }: { user: SignedInUser }) {
  const services = useServices();
  const balance = useBalance(user.id);
  const nextPayment = useNextPayment(services.data);
  const f = useFormat();
  const count = services.data?.length;

  return (
    <div className="space-y-6">
      <NegativeBalanceBanner userId={user.id} />
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-3">
        <StatCard title="Total Services" icon={<Server className="size-4" aria-hidden="true" />} value={count ?? '-'} />
        <StatCard
          title="Billing Status"
          icon={<CreditCard className="size-4" aria-hidden="true" />}
          value={balance.data === undefined ? '-' : f.money(balance.data)}
          note="Available balance"
        />
        <StatCard title="Next Payment" icon={<CalendarClock className="size-4" aria-hidden="true" />} {...nextPaymentText(nextPayment, f)} />
      </div>

      {count === 0 && (
        <Card>
          <h2 className="text-lg font-semibold">Get Started</h2>
          <p className="mt-1 text-sm text-muted-foreground">You have no services yet. Create your first node in a few clicks.</p>
          <Button asChild className="mt-4">
            <Link to={paths.dashboardServices}>Create Service</Link>
          </Button>
        </Card>
      )}

      <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
        <Card>
          <h2 className="text-lg font-semibold">Quick-start guide</h2>
          <ol className="mt-4 space-y-3">
            {STEPS.map((s, i) => (
              <li key={s.title} className="flex gap-3">
                <span className="flex size-7 shrink-0 items-center justify-center rounded-full bg-primary text-sm font-semibold text-primary-foreground">
                  {i + 1}
                </span>
                <div>
                  <Link to={s.to} className="font-medium hover:underline">
                    {s.title}
                  </Link>
                  <p className="text-sm text-muted-foreground">{s.text}</p>
                </div>
              </li>
            ))}
          </ol>
        </Card>
        <Card>
          <h2 className="text-lg font-semibold">Support resources</h2>
          <ul className="mt-4 space-y-3 text-sm">
            <li>
              <Link to={paths.galaApiKey} className="inline-flex items-center gap-2 hover:underline">
                <KeyRound className="size-4" aria-hidden="true" /> Gala API key guide
              </Link>
            </li>
            <li>
              <Link to={paths.playa3ullLicenseKey} className="inline-flex items-center gap-2 hover:underline">
                <KeyRound className="size-4" aria-hidden="true" /> Master Node License Key guide
              </Link>
            </li>
            <li>
              {/* A full load, so the browser scrolls to the FAQ on the prerendered home page. */}
              <a href={`${paths.home}#faq-heading`} className="inline-flex items-center gap-2 hover:underline">
                <HelpCircle className="size-4" aria-hidden="true" /> Frequently asked questions
              </a>
            </li>
            <li>
              <Link to={paths.contact} className="inline-flex items-center gap-2 hover:underline">
                <Mail className="size-4" aria-hidden="true" /> Contact support
              </Link>
            </li>
            <li>
              <Link to={paths.playa3ullHostNode} className="inline-flex items-center gap-2 hover:underline">
                <BookOpen className="size-4" aria-hidden="true" /> Master Node hosting
              </Link>
            </li>
          </ul>
        </Card>
      </div>
    </div>
  );
}

import { Activity, KeyRound, RefreshCw, Timer } from 'lucide-react';
import { Link } from 'react-router';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { FaqList } from '@/components/layout/faq-list';
import { PageHeader } from '@/components/layout/page-header';
import { PlanCard } from '@/components/layout/plan-card';
import { paths } from '@/config/paths';
import { breadcrumbLd, faqLd, Seo, serviceLd } from '@/lib/seo';
import { dailyUptime, oneServicePerWallet } from './playa3ull-rules';

const crumbs = [
  { name: 'Home', path: paths.home },
  { name: 'Playa3ull Hosting', path: paths.playa3ullHostNode },
  { name: 'Host your Master Node', path: paths.playa3ullHostNode },
];

const description = 'Host your Playa3ull Master Node for $3/month with your Master Node License Key: fully managed, monitored 24/7, 99.9% uptime.';

const benefits = [
  { icon: KeyRound, title: 'Your license, your node', text: 'Start with your own Master Node License Key. We never need your wallet.' },
  { icon: Timer, title: '99.9% uptime', text: 'Monitored infrastructure with automatic failover keeps your Master Node online.' },
  { icon: Activity, title: 'Watched around the clock', text: 'We monitor your node 24/7 and act before problems cost you rewards.' },
  { icon: RefreshCw, title: 'Always up to date', text: 'Node updates are installed automatically as soon as they are released.' },
];

const faq = [
  oneServicePerWallet,
  {
    q: 'Where do I find my Master Node License Key?',
    a: 'On your Account page of the PLAYA3ULL GAMES dApp, app.playa3ull.games/account. Our Master Node License Key guide shows the steps.',
  },
  dailyUptime,
];

export default function Playa3ullHostNodePage() {
  return (
    <>
      <Seo
        title="Host your Master Node"
        description={description}
        path={paths.playa3ullHostNode}
        jsonLd={[serviceLd({ name: 'Playa3ull Master Node hosting', description, price: 3, path: paths.playa3ullHostNode }), faqLd(faq), breadcrumbLd(crumbs)]}
      />
      <PageHeader
        title="Host your Master Node"
        crumbs={crumbs}
        lead="Run your Playa3ull Games Master Node on managed infrastructure. Bring your Master Node License Key; we handle the rest."
      >
        <div className="mt-8 flex flex-col gap-3 sm:flex-row">
          <Button asChild size="lg">
            <Link to={paths.playa3ullLicenseKey}>Get your license key</Link>
          </Button>
        </div>
      </PageHeader>
      <section aria-labelledby="benefits" className="mx-auto max-w-6xl px-4 py-16">
        <h2 id="benefits" className="text-2xl font-bold">
          Everything handled for you
        </h2>
        <div className="mt-8 grid gap-6 sm:grid-cols-2 lg:grid-cols-4">
          {benefits.map((b) => (
            <Card key={b.title}>
              <b.icon className="size-7 text-primary" aria-hidden="true" />
              <h3 className="mt-3 font-semibold">{b.title}</h3>
              <p className="mt-2 text-sm text-muted-foreground">{b.text}</p>
            </Card>
          ))}
        </div>
      </section>
      <section aria-labelledby="plan" className="bg-muted/50">
        <div className="mx-auto max-w-6xl px-4 py-16">
          <h2 id="plan" className="text-2xl font-bold">
            One simple plan
          </h2>
          <p className="mt-2 text-muted-foreground">Requires a Master Node License Key. One service covers every license in the same wallet.</p>
          <div className="mt-10 max-w-sm">
            <PlanCard
              contactPath={paths.contact}
              plan={{
                name: 'Master Node',
                price: '$3',
                badge: 'Best Offer',
                available: true,
                features: ['Requires a Master Node License Key', 'Fully managed and monitored 24/7', '99.9% uptime', 'Automatic updates and failover'],
                cta: { label: 'Get Started', to: `${paths.dashboard}/services` },
              }}
            />
          </div>
        </div>
      </section>
      <section aria-labelledby="master-faq" className="mx-auto max-w-3xl px-4 py-16">
        <h2 id="master-faq" className="text-2xl font-bold">
          Frequently asked questions
        </h2>
        <div className="mt-6">
          <FaqList items={faq} />
        </div>
      </section>
    </>
  );
}

import { SUSPENSION_DAYS } from '@shared/constants';
import { Activity, Clock, RefreshCw, ShieldCheck } from 'lucide-react';
import { Link } from 'react-router';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { FaqList } from '@/components/layout/faq-list';
import { PageHeader } from '@/components/layout/page-header';
import { PlanCard, type Plan } from '@/components/layout/plan-card';
import { paths } from '@/config/paths';
import { breadcrumbLd, faqLd, Seo, serviceLd } from '@/lib/seo';

const crumbs = [
  { name: 'Home', path: paths.home },
  { name: 'Gala Hosting', path: paths.galaHostNode },
  { name: 'Host your Gala Node', path: paths.galaHostNode },
];

const description =
  'Host your Gala Town Star node for $10/month: fully managed, set up in under 5 minutes, monitored 24/7 with automatic updates and failover. 99% uptime aim.';

const benefits = [
  { icon: Clock, title: 'Set up in under 5 minutes', text: 'Choose Town Star, paste your Gala API key, done. The dashboard shows installation as it happens.' },
  { icon: Activity, title: '24/7 monitoring', text: 'We watch your node day and night and restart or move it when something goes wrong.' },
  { icon: RefreshCw, title: 'Automatic updates', text: 'New Gala node releases are installed for you, so your node keeps earning.' },
  { icon: ShieldCheck, title: '99% uptime aim', text: 'Professional datacenters, automatic failover and people on call. We strive for 99% uptime.' },
];

const plans: Plan[] = [
  {
    name: 'Town Star',
    price: '$10',
    badge: 'Available now',
    available: true,
    features: ['Runs with your Gala API key', 'Fully managed and monitored 24/7', 'Automatic updates and failover', 'Renews from your credit balance'],
    cta: { label: 'Get Started', to: `${paths.dashboard}/services` },
  },
  { name: 'Founders Node', available: false, features: ['Hosting for Gala Founders Nodes', 'Fully managed and monitored 24/7'] },
  { name: 'Spider Tanks', available: false, features: ['Hosting for Spider Tanks nodes', 'Fully managed and monitored 24/7'] },
  { name: 'Mirandus', available: false, features: ['Hosting for Mirandus nodes', 'Fully managed and monitored 24/7'] },
];

const comparison: { feature: string; us: string; vps: string; dedicated: string }[] = [
  { feature: 'Monthly cost', us: '$10/month', vps: 'Server rent, plus your time', dedicated: 'Higher server rent, plus your time' },
  { feature: 'Setup time', us: 'Under 5 minutes', vps: 'Hours', dedicated: 'Hours to days' },
  { feature: 'Technical skills needed', us: 'None', vps: 'Linux administration', dedicated: 'Linux and hardware administration' },
  { feature: 'Node software updates', us: 'Automatic', vps: 'Manual', dedicated: 'Manual' },
  { feature: '24/7 monitoring', us: 'Included', vps: 'Set up yourself', dedicated: 'Set up yourself' },
  { feature: 'Failover', us: 'Automatic', vps: 'None', dedicated: 'None' },
];

const faq = [
  {
    q: 'What do I need to host a Gala node?',
    a: 'Your Gala API key and enough credit for the first month. Our Gala API Key guide shows how to get the key and keep it safe.',
  },
  {
    q: 'Can I run more than one node?',
    a: "Yes, one for each node license your Gala account owns. Each node is its own service, started with your account's API key, and each is charged separately from your balance.",
  },
  {
    q: 'What happens if my balance runs out?',
    a: `A service renews automatically only if your balance covers it. Otherwise it is suspended and its node stopped; a top-up within ${SUSPENSION_DAYS} days renews it and starts the same node again. After that it is terminated and its node removed.`,
  },
];

export default function GalaHostNodePage() {
  return (
    <>
      <Seo
        title="Host your Gala Node"
        description={description}
        path={paths.galaHostNode}
        jsonLd={[serviceLd({ name: 'Gala Town Star node hosting', description, price: 10, path: paths.galaHostNode }), faqLd(faq), breadcrumbLd(crumbs)]}
      />
      <PageHeader
        title="Host your Gala Node"
        crumbs={crumbs}
        lead="Run a Gala Town Star node without renting a server or touching a command line. We install it with your key, keep it updated and watch it around the clock."
      >
        <div className="mt-8 flex flex-col gap-3 sm:flex-row">
          <Button asChild size="lg">
            <a href="#plans">View plans</a>
          </Button>
          <Button asChild size="lg" variant="outline">
            <Link to={paths.galaApiKey}>Get your API key</Link>
          </Button>
        </div>
      </PageHeader>

      <section aria-labelledby="benefits" className="mx-auto max-w-6xl px-4 py-16">
        <h2 id="benefits" className="text-2xl font-bold">
          Why host your Gala node with us
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

      <section id="plans" aria-labelledby="plans-heading" className="bg-muted/50">
        <div className="mx-auto max-w-6xl px-4 py-16">
          <h2 id="plans-heading" className="text-2xl font-bold">
            Node plans
          </h2>
          <p className="mt-2 text-muted-foreground">Town Star is available today. More Gala nodes are on the way.</p>
          <div className="mt-10 grid gap-6 sm:grid-cols-2 lg:grid-cols-4">
            {plans.map((p) => (
              <PlanCard key={p.name} plan={p} contactPath={paths.contact} />
            ))}
          </div>
        </div>
      </section>

      <section aria-labelledby="compare" className="mx-auto max-w-6xl px-4 py-16">
        <h2 id="compare" className="text-2xl font-bold">
          NodeHarbor compared with running it yourself
        </h2>
        {/* Focusable, so a keyboard can scroll the table on a narrow screen. */}
        <div role="region" aria-label="Comparison table" tabIndex={0} className="mt-8 overflow-x-auto rounded-xl border border-border">
          <table className="w-full min-w-[40rem] text-left text-sm">
            <caption className="sr-only">NodeHarbor compared with a VPS and a dedicated server</caption>
            <thead className="bg-muted">
              <tr>
                <th scope="col" className="px-4 py-3 font-semibold">
                  Feature
                </th>
                <th scope="col" className="px-4 py-3 font-semibold">
                  NodeHarbor
                </th>
                <th scope="col" className="px-4 py-3 font-semibold">
                  VPS
                </th>
                <th scope="col" className="px-4 py-3 font-semibold">
                  Dedicated server
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-border">
              {comparison.map((r) => (
                <tr key={r.feature}>
                  <th scope="row" className="px-4 py-3 font-medium">
                    {r.feature}
                  </th>
                  <td className="px-4 py-3 font-medium text-primary">{r.us}</td>
                  <td className="px-4 py-3 text-muted-foreground">{r.vps}</td>
                  <td className="px-4 py-3 text-muted-foreground">{r.dedicated}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>

      <section aria-labelledby="gala-faq" className="mx-auto max-w-3xl px-4 pb-16">
        <h2 id="gala-faq" className="text-2xl font-bold">
          Questions
        </h2>
        <div className="mt-6">
          <FaqList items={faq} />
        </div>
      </section>
    </>
  );
}

import { Activity, Clock, KeyRound, RefreshCw, ServerCog, ShieldCheck, Wallet, Zap } from 'lucide-react';
import { Link } from 'react-router';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Tabs } from '@/components/ui/tabs';
import { FaqList } from '@/components/layout/faq-list';
import { paths } from '@/config/paths';
import { PAID_FROM_FIRST_RUN } from '@/features/services/service-status';
import { faqLd, organizationLd, Seo, websiteLd } from '@/lib/seo';

const features = [
  { icon: Zap, title: 'Deployed within minutes', text: 'Pick a plan, paste your key, and your node is installing. No tickets, no waiting for a technician.' },
  { icon: ServerCog, title: 'Fully managed', text: 'We run the servers, the operating system and the node software. You never open a terminal.' },
  { icon: Activity, title: '24/7 monitoring', text: 'Every node is watched around the clock, and problems are handled before they cost you rewards.' },
  { icon: RefreshCw, title: 'Automatic updates', text: 'New node releases are rolled out for you, so you stay compatible with the network.' },
  { icon: ShieldCheck, title: 'Automatic failover', text: 'If a machine fails, your node moves to healthy hardware without you lifting a finger.' },
  { icon: Wallet, title: 'Prepaid credit', text: 'Top up once and services renew from your balance. Funds never expire.' },
];

const operations = [
  'Installation and configuration with your own API key',
  'Health checks and restarts, day and night',
  'Node software updates as soon as they ship',
  'Failover to standby hardware',
  'Renewal from your credit balance, or extend whenever you like',
  'A dashboard that shows every node and its status',
];

export const homeFaq = [
  {
    q: 'What do I need to get started?',
    a: 'An account, prepaid credit and your node key: a Gala API key for a Town Star node, or a Master Node License Key for Playa3ull Master Nodes, where one service covers every license in the same wallet. No server and no command line.',
  },
  {
    q: 'How long does deployment take?',
    a: 'Your node is deployed within minutes of ordering. Installation finishes within about 10 minutes, and the dashboard shows its progress.',
  },
  {
    q: 'What if my node fails to install?',
    a: `${PAID_FROM_FIRST_RUN} The dashboard shows why it failed, and you can retry the installation, which charges the price again once you confirm, or delete the service.`,
  },
  {
    q: 'Is uptime guaranteed?',
    a: 'No. Datacenter power and network agreements vary, so we cannot guarantee uptime, but we strive for 99% and monitor every node around the clock to get there.',
  },
  {
    q: 'How do I pay?',
    a: 'You buy prepaid credit through our payment provider. Services are charged from your balance when they start and when they renew. Funds never expire.',
  },
  {
    q: 'What if my balance runs short, and can I get a refund?',
    a: 'When a renewal finds your balance short, the service is suspended and starts again as soon as you add funds; if you do not within the suspension period, it is terminated. We refund a purchase to the payment method it came from, through PayPal. The Billing and refunds section of our Terms of Service has the details and the numbers.',
  },
];

const tabs = [
  {
    value: 'gaming-nodes',
    label: 'Gaming Nodes',
    title: 'Nodes for the games you play',
    text: 'Host a Gala Town Star node for $10/month or a Playa3ull Master Node for $3/month. Each node runs on its own with your key, so the rewards stay yours.',
  },
  {
    value: 'performance',
    label: 'Performance',
    title: 'Built for steady work',
    text: 'Nodes run on dedicated resources in professional datacenters with fast networks, so they answer the network promptly and keep earning.',
  },
  {
    value: 'reliability',
    label: 'Reliability',
    title: 'Watched around the clock',
    text: 'Continuous monitoring, automatic restarts, automatic updates and failover to standby hardware. We aim for 99% uptime on every node.',
  },
];

export default function HomePage() {
  return (
    <>
      <Seo
        title="Managed Blockchain Gaming Node Hosting"
        description="Managed hosting for blockchain gaming nodes. Run a Gala Town Star node or a Playa3ull Master Node with your own key: deployed within minutes, monitored 24/7."
        path={paths.home}
        jsonLd={[organizationLd(), websiteLd(), faqLd(homeFaq)]}
      />
      <section className="border-b border-border bg-gradient-to-b from-accent to-background">
        <div className="mx-auto max-w-6xl px-4 py-20 text-center sm:py-28">
          <p className="text-sm font-semibold uppercase tracking-wider text-primary">Managed node hosting</p>
          <h1 className="mx-auto mt-4 max-w-3xl text-4xl font-bold tracking-tight sm:text-5xl">Your blockchain gaming nodes, hosted and handled</h1>
          <p className="mx-auto mt-6 max-w-2xl text-lg text-muted-foreground">
            Bring your key. We run the node: deployed within minutes, fully managed, monitored 24/7. Earn passive rewards without a server or a command line.
          </p>
          <div className="mt-10 flex flex-col justify-center gap-3 sm:flex-row">
            <Button asChild size="lg">
              <Link to={paths.galaHostNode}>Host Gaming Nodes</Link>
            </Button>
            <Button asChild size="lg" variant="outline">
              <Link to={paths.about}>Learn More</Link>
            </Button>
          </div>
        </div>
      </section>

      <section aria-labelledby="features-heading" className="mx-auto max-w-6xl px-4 py-20">
        <h2 id="features-heading" className="text-center text-3xl font-bold tracking-tight">
          Everything a node needs
        </h2>
        <div className="mt-12 grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
          {features.map((f) => (
            <Card key={f.title}>
              <f.icon className="size-8 text-primary" aria-hidden="true" />
              <h3 className="mt-4 text-lg font-semibold">{f.title}</h3>
              <p className="mt-2 text-muted-foreground">{f.text}</p>
            </Card>
          ))}
        </div>
      </section>

      <section aria-labelledby="operations-heading" className="bg-muted/50">
        <div className="mx-auto grid max-w-6xl items-center gap-12 px-4 py-20 lg:grid-cols-2">
          <div>
            <h2 id="operations-heading" className="text-3xl font-bold tracking-tight">
              Fully Managed Node Operations
            </h2>
            <p className="mt-4 text-lg text-muted-foreground">
              Running a node well is a full-time job. We make it ours, so your part is choosing a plan and checking your rewards.
            </p>
          </div>
          <ul className="space-y-3">
            {operations.map((o) => (
              <li key={o} className="flex gap-3">
                <ShieldCheck className="mt-0.5 size-5 shrink-0 text-primary" aria-hidden="true" />
                <span>{o}</span>
              </li>
            ))}
          </ul>
        </div>
      </section>

      <section aria-labelledby="why-heading" className="mx-auto max-w-6xl px-4 py-20">
        <h2 id="why-heading" className="text-center text-3xl font-bold tracking-tight">
          Why operators choose us
        </h2>
        <div className="mx-auto mt-10 max-w-3xl">
          <Tabs
            label="Why operators choose us"
            defaultValue="gaming-nodes"
            fill
            tabs={tabs.map((t) => ({
              value: t.value,
              label: t.label,
              content: (
                <Card id={t.value}>
                  <h3 className="text-xl font-semibold">{t.title}</h3>
                  <p className="mt-3 text-muted-foreground">{t.text}</p>
                </Card>
              ),
            }))}
          />
        </div>
      </section>

      <section id="faq" aria-labelledby="faq-heading" className="mx-auto max-w-3xl px-4 pb-20">
        <h2 id="faq-heading" className="text-center text-3xl font-bold tracking-tight">
          Frequently asked questions
        </h2>
        <div className="mt-10">
          <FaqList items={homeFaq} />
        </div>
      </section>

      <section className="bg-primary text-primary-foreground">
        <div className="mx-auto max-w-6xl px-4 py-16 text-center">
          <h2 className="text-3xl font-bold tracking-tight">Ready to run your node?</h2>
          <p className="mx-auto mt-4 max-w-2xl text-lg opacity-90">
            <Clock className="mr-2 inline size-5 align-text-bottom" aria-hidden="true" />
            Setup takes under 5 minutes. <KeyRound className="mx-2 inline size-5 align-text-bottom" aria-hidden="true" />
            Your key stays yours.
          </p>
          <div className="mt-8 flex flex-col justify-center gap-3 sm:flex-row">
            <Button asChild size="lg" variant="onPrimary">
              <Link to={paths.galaHostNode}>See Gala plans</Link>
            </Button>
            <Button asChild size="lg" variant="onPrimary">
              <Link to={paths.contact}>Talk to us</Link>
            </Button>
          </div>
        </div>
      </section>
    </>
  );
}

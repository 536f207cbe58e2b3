import { Gauge, HeartHandshake, Lock, Server, Target, Wrench } from 'lucide-react';
import { Link } from 'react-router';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { PageHeader } from '@/components/layout/page-header';
import { paths } from '@/config/paths';
import { site } from '@/config/site';
import { breadcrumbLd, organizationLd, Seo } from '@/lib/seo';

const crumbs = [
  { name: 'Home', path: paths.home },
  { name: 'About', path: paths.about },
];

const reasons = [
  {
    icon: Wrench,
    title: 'No server skills needed',
    text: 'No command line, no server management, no updates to chase. If you can paste a key, you can run a node.',
  },
  { icon: Gauge, title: 'Fast to start', text: 'Nodes are deployed within minutes of ordering, and the dashboard shows each step.' },
  { icon: HeartHandshake, title: 'People who answer', text: 'Sales and support questions reach a person who knows nodes, through our contact form.' },
];

const advantages = [
  {
    icon: Server,
    title: 'Professional infrastructure',
    text: 'Your Gala node runs in a datacenter with redundant power and networking, not on a home connection that drops when the router restarts.',
  },
  {
    icon: Lock,
    title: 'Your API key, kept safe',
    text: 'Keys are stored encrypted and used only to run your node. We never ask for wallet seed phrases or private keys.',
  },
  {
    icon: Target,
    title: 'Uptime we work for',
    text: 'Around-the-clock monitoring, automatic updates and automatic failover. We strive for 99% uptime on every node.',
  },
];

export default function AboutPage() {
  return (
    <>
      <Seo
        title="About Us"
        description={`NodeHarbor has hosted blockchain gaming nodes since ${site.foundingYear}. Our mission: make node operation simple, so anyone can earn passive rewards.`}
        path={paths.about}
        jsonLd={[organizationLd(), breadcrumbLd(crumbs)]}
      />
      <PageHeader
        title="About NodeHarbor"
        crumbs={crumbs}
        lead="We believe anyone who wants to support a gaming network should be able to, without becoming a system administrator first."
      />
      <section aria-labelledby="mission" className="mx-auto max-w-3xl px-4 py-16">
        <h2 id="mission" className="text-2xl font-bold">
          Our mission
        </h2>
        <p className="mt-4 text-lg leading-relaxed text-muted-foreground">
          Blockchain games reward the people who run their networks. But running a node means renting a server, keeping it patched, watching it at night and
          fixing it when it breaks. Since {site.foundingYear} we have taken that work off node operators&apos; hands, so they can focus on the games and collect
          their rewards.
        </p>
      </section>
      <section aria-labelledby="why" className="bg-muted/50">
        <div className="mx-auto max-w-6xl px-4 py-16">
          <h2 id="why" className="text-2xl font-bold">
            Why choose NodeHarbor
          </h2>
          <div className="mt-8 grid gap-6 md:grid-cols-3">
            {reasons.map((r) => (
              <Card key={r.title}>
                <r.icon className="size-7 text-primary" aria-hidden="true" />
                <h3 className="mt-3 font-semibold">{r.title}</h3>
                <p className="mt-2 text-muted-foreground">{r.text}</p>
              </Card>
            ))}
          </div>
        </div>
      </section>
      <section aria-labelledby="advantages" className="mx-auto max-w-6xl px-4 py-16">
        <h2 id="advantages" className="text-2xl font-bold">
          The advantages of Gala node API hosting
        </h2>
        <p className="mt-4 max-w-3xl text-muted-foreground">
          A hosted Gala node starts with your own API key and runs on our infrastructure, at $10/month for Town Star.
        </p>
        <div className="mt-8 grid gap-6 md:grid-cols-3">
          {advantages.map((a) => (
            <Card key={a.title}>
              <a.icon className="size-7 text-primary" aria-hidden="true" />
              <h3 className="mt-3 font-semibold">{a.title}</h3>
              <p className="mt-2 text-muted-foreground">{a.text}</p>
            </Card>
          ))}
        </div>
        <div className="mt-10 flex flex-col gap-3 sm:flex-row">
          <Button asChild>
            <Link to={paths.galaHostNode}>Host your Gala Node</Link>
          </Button>
          <Button asChild variant="outline">
            <Link to={paths.contact}>Contact us</Link>
          </Button>
        </div>
      </section>
    </>
  );
}

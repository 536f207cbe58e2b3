import { CircleCheck, CircleX, KeyRound, Lock, ShieldCheck, Timer } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { FaqList } from '@/components/layout/faq-list';
import { PageHeader } from '@/components/layout/page-header';
import { paths } from '@/config/paths';
import { articleLd, breadcrumbLd, faqLd, Seo } from '@/lib/seo';
import { dailyUptime, oneServicePerWallet, PLAYA3ULL_ACCOUNT_URL } from './playa3ull-rules';

const crumbs = [
  { name: 'Home', path: paths.home },
  { name: 'Playa3ull Hosting', path: paths.playa3ullHostNode },
  { name: 'Master Node License Key', path: paths.playa3ullLicenseKey },
];

const description =
  'How to find your Playa3ull Master Node License Key on the PLAYA3ULL GAMES dApp and configure it securely for a hosted Master Node: five steps, what to do and what to avoid, and answers to common questions.';

/** The vendor's placeholder for the key, as the create-service form quotes it. */
const FORM = '############-####-####-####-############';

const claims = [
  { icon: Lock, title: 'Encrypted at rest', text: 'Your key is stored encrypted and is only ever used to run your node.' },
  { icon: ShieldCheck, title: 'Never shown in full', text: 'The dashboard masks your key and shows only its last 4 characters until you choose to reveal it.' },
  { icon: Timer, title: '99.9% uptime', text: 'Once configured, your node runs on monitored infrastructure with automatic failover.' },
];

const steps: { title: string; text: ReactNode }[] = [
  {
    title: 'Sign in to the PLAYA3ULL GAMES dApp',
    text: 'Open the PLAYA3ULL GAMES dApp and sign in with the account whose wallet holds your Master Node licenses.',
  },
  {
    title: 'Open your Account page',
    text: (
      <>
        Your license key is on your Account page,{' '}
        <a href={PLAYA3ULL_ACCOUNT_URL} target="_blank" rel="noopener noreferrer" className="text-primary underline">
          app.playa3ull.games/account
        </a>{' '}
        (Playa3ull dApp › Account › license key).
      </>
    ),
  },
  {
    title: 'Copy your license key',
    text: `It has the form ${FORM}: five groups of 12, 4, 4, 4 and 12 letters or digits, separated by hyphens, 40 characters in all.`,
  },
  {
    title: 'Paste it straight into NodeHarbor',
    text: `Paste the key into the Master Node License Key field when you create your service. The form rejects a key of any other form with the message "License key must have the form ${FORM}". Do not store the key in a note or a chat.`,
  },
  {
    title: 'Create your service',
    text: 'Choose the Master Node plan and confirm. One service covers every license in the same wallet. Installation starts at once and finishes within about 10 minutes.',
  },
];

const dos = [
  'Paste the key only into the NodeHarbor dashboard, over https',
  'Order one Master Node service for each wallet that holds licenses',
  'Use a strong, unique password and sign out on shared computers',
];

const avoids = [
  'Sharing your key in chats, forums, screenshots or support messages',
  'Giving anyone your wallet seed phrase or private key: the license key never needs them',
  'Ordering a second service for licenses in a wallet that one service already covers',
];

const faq = [
  oneServicePerWallet,
  dailyUptime,
  {
    q: 'Is my license key safe with NodeHarbor?',
    a: 'Keys are stored encrypted, used only to run your Master Node, and masked in the dashboard. Our staff will never ask you for it.',
  },
  {
    q: 'What if my key is rejected?',
    a: `Check that you copied all of it, with no spaces. A Master Node License Key has the form ${FORM}: five groups of 12, 4, 4, 4 and 12 letters or digits, separated by hyphens.`,
  },
  {
    q: 'Does NodeHarbor need my wallet?',
    a: "No. The license key is all a hosted Master Node needs; it never needs your wallet's seed phrase or private key. Never share them with anyone.",
  },
];

export default function Playa3ullLicenseKeyPage() {
  return (
    <>
      <Seo
        title="Master Node License Key"
        description={description}
        path={paths.playa3ullLicenseKey}
        type="article"
        jsonLd={[
          articleLd({ headline: 'Master Node License Key: find it and configure it securely', description, path: paths.playa3ullLicenseKey }),
          faqLd(faq),
          breadcrumbLd(crumbs),
        ]}
      />
      <PageHeader
        title="Master Node License Key"
        crumbs={crumbs}
        lead="Your Master Node License Key is what lets us run your Playa3ull Master Node for you. Here is where to find it and how to keep it safe."
      />

      <section aria-labelledby="security" className="mx-auto max-w-6xl px-4 py-16">
        <h2 id="security" className="text-2xl font-bold">
          How we protect your key
        </h2>
        <div className="mt-8 grid gap-6 md:grid-cols-3">
          {claims.map((c) => (
            <Card key={c.title}>
              <c.icon className="size-7 text-primary" aria-hidden="true" />
              <h3 className="mt-3 font-semibold">{c.title}</h3>
              <p className="mt-2 text-sm text-muted-foreground">{c.text}</p>
            </Card>
          ))}
        </div>
      </section>

      <section aria-labelledby="steps" className="bg-muted/50">
        <div className="mx-auto max-w-3xl px-4 py-16">
          <h2 id="steps" className="text-2xl font-bold">
            Five steps to a running node
          </h2>
          <ol className="mt-8 space-y-6">
            {steps.map((s, i) => (
              <li key={s.title} className="flex gap-4">
                <span
                  className="flex size-9 shrink-0 items-center justify-center rounded-full bg-primary font-semibold text-primary-foreground"
                  aria-hidden="true"
                >
                  {i + 1}
                </span>
                <div>
                  <h3 className="font-semibold">
                    <span className="sr-only">Step {i + 1}: </span>
                    {s.title}
                  </h3>
                  <p className="mt-1 text-muted-foreground">{s.text}</p>
                </div>
              </li>
            ))}
          </ol>
        </div>
      </section>

      <section aria-label="Do and avoid" className="mx-auto grid max-w-6xl gap-6 px-4 py-16 md:grid-cols-2">
        <Card>
          <h2 className="flex items-center gap-2 text-xl font-semibold">
            <CircleCheck className="size-6 text-green-700 dark:text-green-400" aria-hidden="true" /> Do
          </h2>
          <ul className="mt-4 space-y-2 text-muted-foreground">
            {dos.map((d) => (
              <li key={d}>{d}</li>
            ))}
          </ul>
        </Card>
        <Card>
          <h2 className="flex items-center gap-2 text-xl font-semibold">
            <CircleX className="size-6 text-destructive" aria-hidden="true" /> Avoid
          </h2>
          <ul className="mt-4 space-y-2 text-muted-foreground">
            {avoids.map((d) => (
              <li key={d}>{d}</li>
            ))}
          </ul>
        </Card>
      </section>

      <section aria-labelledby="key-faq" className="mx-auto max-w-3xl px-4 pb-16">
        <h2 id="key-faq" className="text-2xl font-bold">
          Frequently asked questions
        </h2>
        <div className="mt-6">
          <FaqList items={faq} />
        </div>
        <div className="mt-10 flex flex-col gap-3 sm:flex-row">
          <Button asChild>
            <Link to={paths.playa3ullHostNode}>
              <KeyRound className="size-4" aria-hidden="true" /> Host your Master Node
            </Link>
          </Button>
          <Button asChild variant="outline">
            <Link to={paths.contact}>Ask a question</Link>
          </Button>
        </div>
      </section>
    </>
  );
}

import { CircleCheck, CircleX, KeyRound, Lock, ShieldCheck, Timer } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { FaqList, type FaqItem } from '@/components/layout/faq-list';
import { paths } from '@/config/paths';

const claims = [
  { icon: Lock, title: 'Encrypted at rest', text: 'Your key is stored encrypted and is only ever used to run your node.' },
  { icon: ShieldCheck, title: 'Never shown in full', text: 'The dashboard masks your key and shows only its last 4 characters until you choose to reveal it.' },
  { icon: Timer, title: '99.9% uptime', text: 'Once configured, your node runs on monitored infrastructure with automatic failover.' },
];

export type KeyGuideStep = { title: string; text: ReactNode };

type KeyGuideProps = {
  steps: KeyGuideStep[];
  dos: string[];
  avoids: string[];
  faq: FaqItem[];
  /** The host page the guide leads back to, and its button's label. */
  hostPath: string;
  hostLabel: string;
};

/**
 * The body of a key guide (spec: security claims, five steps, do and avoid lists, FAQ), the same
 * for every vendor's key: each guide page gives its own words, title and structured data.
 */
export function KeyGuide({ steps, dos, avoids, faq, hostPath, hostLabel }: KeyGuideProps) {
  return (
    <>
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
            <Link to={hostPath}>
              <KeyRound className="size-4" aria-hidden="true" /> {hostLabel}
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

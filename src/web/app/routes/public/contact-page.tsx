import { Clock, LifeBuoy, Mail } from 'lucide-react';
import { Suspense } from 'react';
import { PageHeader } from '@/components/layout/page-header';
import { Card } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { paths } from '@/config/paths';
import { deferUntilInteraction } from '@/lib/deferred-hydration';
import { breadcrumbLd, organizationLd, Seo } from '@/lib/seo';

// The form's code (react-hook-form, the zod rules) loads on the first interaction.
const ContactForm = deferUntilInteraction(() => import('@/features/contact/components/contact-form').then((m) => m.ContactForm));

const crumbs = [
  { name: 'Home', path: paths.home },
  { name: 'Contact', path: paths.contact },
];

export default function ContactPage() {
  return (
    <>
      <Seo
        title="Contact Us"
        description="Questions about hosting a Gala or Playa3ull node, or help with your service? Send us a message: sales and support, answered by people who run nodes."
        path={paths.contact}
        jsonLd={[organizationLd(), breadcrumbLd(crumbs)]}
      />
      <PageHeader title="Get in Touch" crumbs={crumbs} lead="Questions before you start, or help with a running node: tell us, and we will get back to you." />
      <div className="mx-auto grid max-w-6xl gap-10 px-4 py-16 lg:grid-cols-3">
        <Card className="lg:col-span-2">
          <h2 className="mb-6 text-xl font-semibold">Send us a message</h2>
          <Suspense fallback={<Spinner label="Loading..." />}>
            <ContactForm />
          </Suspense>
        </Card>
        <div className="space-y-4">
          <Card>
            <Mail className="size-6 text-primary" aria-hidden="true" />
            <h2 className="mt-3 font-semibold">Sales</h2>
            <p className="mt-1 text-sm text-muted-foreground">Plans, pricing and what a hosted node can do for you.</p>
          </Card>
          <Card>
            <LifeBuoy className="size-6 text-primary" aria-hidden="true" />
            <h2 className="mt-3 font-semibold">Support</h2>
            <p className="mt-1 text-sm text-muted-foreground">Help with a service, your account, billing or payments.</p>
          </Card>
          <Card>
            <Clock className="size-6 text-primary" aria-hidden="true" />
            <h2 className="mt-3 font-semibold">Response time</h2>
            <p className="mt-1 text-sm text-muted-foreground">We answer most messages within one business day.</p>
          </Card>
        </div>
      </div>
    </>
  );
}

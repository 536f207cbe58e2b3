import { Link } from 'react-router';
import { LegalPage } from '@/components/layout/legal-page';
import { paths } from '@/config/paths';
import { site } from '@/config/site';
import { articleLd, breadcrumbLd, Seo } from '@/lib/seo';

const description = 'What personal data NodeHarbor collects, why, who it is shared with, how it is protected and kept, and the rights you have over it.';

export default function PrivacyPage() {
  return (
    <>
      <Seo
        title="Privacy Policy"
        description={description}
        path={paths.privacy}
        type="article"
        jsonLd={[
          articleLd({ headline: 'Privacy Policy', description, path: paths.privacy }),
          breadcrumbLd([
            { name: 'Home', path: paths.home },
            { name: 'Privacy Policy', path: paths.privacy },
          ]),
        ]}
      />
      <LegalPage
        title="Privacy Policy"
        updated="1 November 2026"
        intro="We collect only what we need to run your nodes and your account, and we never sell it."
        sections={[
          {
            heading: 'Data we collect',
            body: (
              <p>
                Account data (email address, name, and optionally company and VAT ID), the API or license keys you give us for your services, billing records of
                credit purchases and charges, messages you send us, and technical data such as IP addresses and sign-in times.
              </p>
            ),
          },
          {
            heading: 'How we use it',
            body: (
              <p>
                To run and renew your services, keep your account secure, process payments, answer your messages, send service e-mails such as confirmations and
                password resets, and meet our legal obligations.
              </p>
            ),
          },
          {
            heading: 'Sharing',
            body: (
              <p>
                We share data only with providers that help us run the service (hosting, e-mail delivery, payment processing), under contracts that bind them to
                protect it, and with authorities when the law requires. We never sell personal data.
              </p>
            ),
          },
          {
            heading: 'Security',
            body: (
              <p>
                Connections are encrypted, passwords are stored as salted hashes, node keys are stored encrypted, and access to our systems is restricted to the
                people who need it.
              </p>
            ),
          },
          {
            heading: 'Retention',
            body: (
              <p>
                We keep account data while your account is open. Billing records are kept as long as tax law requires. Other data is deleted or anonymised when
                it is no longer needed.
              </p>
            ),
          },
          {
            heading: 'Your rights',
            body: (
              <p>
                You may ask to see, correct, export or delete your personal data, and object to or restrict how we use it. Contact us and we will answer within
                one month.
              </p>
            ),
          },
          {
            heading: 'Cookies',
            body: (
              <p>
                We use a small number of cookies and similar browser storage, described in our{' '}
                <Link to={paths.cookies} className="text-primary underline">
                  Cookie Policy
                </Link>
                .
              </p>
            ),
          },
          {
            heading: 'Third-party services',
            body: (
              <p>
                Payments are handled by our payment provider, which processes your payment details under its own privacy policy. Links to partner sites lead to
                services with their own policies.
              </p>
            ),
          },
          {
            heading: 'International transfers',
            body: (
              <p>
                Our providers may process data in other countries. Where they do, we rely on safeguards the law recognises, such as standard contractual
                clauses.
              </p>
            ),
          },
          {
            heading: 'Contact',
            body: (
              <p>
                For anything about your data, use our{' '}
                <Link to={paths.contact} className="text-primary underline">
                  contact form
                </Link>{' '}
                or write to {site.email}.
              </p>
            ),
          },
        ]}
      />
    </>
  );
}

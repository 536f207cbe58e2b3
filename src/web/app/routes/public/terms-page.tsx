import { Link } from 'react-router';
import { LegalPage } from '@/components/layout/legal-page';
import { paths } from '@/config/paths';
import { site } from '@/config/site';
import { articleLd, breadcrumbLd, Seo } from '@/lib/seo';
import { useAppConfig } from '@/lib/app-config';
import { billingPolicy } from '@shared/billing-policy';
import { SUSPENSION_DAYS } from '@shared/constants';

const description = 'The terms that govern your use of NodeHarbor: accounts, prepaid credit, our 99% uptime aim, acceptable use, liability and termination.';

export default function TermsPage() {
  // The server's own SUSPENSION_DAYS once its config is read; the default before (and when prerendered).
  const config = useAppConfig().data;
  const suspensionDays = config?.suspensionDays ?? SUSPENSION_DAYS;
  const crypto = config?.cryptoPayments ?? false;
  return (
    <>
      <Seo
        title="Terms of Service"
        description={description}
        path={paths.terms}
        type="article"
        jsonLd={[
          articleLd({ headline: 'Terms of Service', description, path: paths.terms }),
          breadcrumbLd([
            { name: 'Home', path: paths.home },
            { name: 'Terms of Service', path: paths.terms },
          ]),
        ]}
      />
      <LegalPage
        title="Terms of Service"
        updated="1 November 2026"
        intro="These terms are the agreement between you and NodeHarbor. Please read them before you use the service."
        sections={[
          {
            heading: 'Acceptance of terms',
            body: <p>By creating an account or using any part of NodeHarbor you agree to these terms. If you do not agree, do not use the service.</p>,
          },
          {
            heading: 'Service description',
            body: (
              <p>
                NodeHarbor hosts and manages blockchain gaming nodes for you, started with an API key or license key that you supply. We provide the servers,
                installation, monitoring, updates and failover. The rewards a node earns are decided by the network it serves, not by us.
              </p>
            ),
          },
          {
            heading: 'Accounts',
            body: (
              <p>
                You are responsible for your account, for keeping your password secret and for everything done with it. Give us accurate information and tell us
                promptly if you suspect unauthorised use.
              </p>
            ),
          },
          {
            heading: 'Payment terms',
            body: (
              <p>
                Services are paid from prepaid credit bought through our payment provider. Plan prices are shown before you order, for example $10/month for a
                Town Star node and $3/month for a Master Node. A service is charged when it starts and renews automatically only if your balance covers the
                renewal. Credit never expires and is not redeemable for cash.
              </p>
            ),
          },
          {
            heading: 'Billing and refunds',
            body: (
              <>
                {billingPolicy(suspensionDays, crypto).map((p) => (
                  <p key={p.heading}>
                    <strong>{p.heading}.</strong> {p.text}
                  </p>
                ))}
              </>
            ),
          },
          {
            heading: 'Service availability',
            body: (
              <p>
                We aim for 99% uptime and monitor every node around the clock, but we do not guarantee uptime. We are not liable for rewards missed because a
                node, a network or a datacenter was unavailable.
              </p>
            ),
          },
          {
            heading: 'Prohibited use',
            body: (
              <p>
                You may not use the service for anything unlawful, to attack or disrupt other systems or networks, to run software other than the node you
                ordered, or to breach the rules of the network your node serves. We may suspend services that do.
              </p>
            ),
          },
          {
            heading: 'Privacy',
            body: (
              <p>
                How we handle personal data is described in our{' '}
                <Link to={paths.privacy} className="text-primary underline">
                  Privacy Policy
                </Link>
                , which forms part of these terms.
              </p>
            ),
          },
          {
            heading: 'Limitation of liability',
            body: (
              <p>
                To the extent the law allows, our total liability for any claim relating to the service is limited to one month of your payments: the amount you
                paid us in the month before the claim arose, and we are not liable for indirect or consequential loss, including lost rewards or tokens.
              </p>
            ),
          },
          {
            heading: 'Force majeure',
            body: (
              <p>
                We are not responsible for failures or delays caused by events beyond our reasonable control, such as power or network outages at our providers,
                natural disasters, war, strikes or changes made by a blockchain network.
              </p>
            ),
          },
          {
            heading: 'Termination',
            body: (
              <p>
                You may stop using the service and delete your services at any time. We may suspend or end your access at any time if you breach these terms or
                if we stop offering the service.
              </p>
            ),
          },
          {
            heading: 'Changes to these terms',
            body: (
              <p>We may update these terms. Changes take effect when they are posted on this page, and continuing to use the service means you accept them.</p>
            ),
          },
          {
            heading: 'Contact',
            body: (
              <p>
                Questions about these terms? Use our{' '}
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
